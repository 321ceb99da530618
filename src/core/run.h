// A recorded run: what failmap keeps of one strategy run over one case. One
// type for every holder of it: the archive's runs table (src/store/runs.h,
// which stores it compactly), a bundle's "run" records (src/io/bundle.h),
// the commands that record, list and export runs. Pure data; the document
// it carries is written by src/io/observation.h.
#pragma once

#include <string>

#include "core/mechanism.h"

namespace failmap {

/// A recorded run of a case: the strategy's observation document, its exit
/// status and digest, and which failmap recorded it when.
struct RunRecord {
  std::string case_id;
  StrategyKind strategy = StrategyKind::Broken;
  std::string observation;  ///< observation document bytes, no trailing newline
  int exit_status = 0;
  std::string digest;  ///< SHA-256 hex of `observation`
  std::string failmap_version;
  std::string recorded_at;  ///< UTC, "YYYY-MM-DDTHH:MM:SSZ" as failmap writes it; verbatim from a bundle
};

}  // namespace failmap
