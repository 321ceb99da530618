// A recorded run as the runs table holds it (compact: its actual values
// when they rebuild the observation document) and the rebuilding of its
// document. Stored and read by the Archive members of store/runs.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/run.h"

namespace failmap {

/// A recorded run as the runs table holds it: `run` with its observation
/// document still to be rebuilt from `actuals` (rebuild_observation) when
/// they are set; otherwise `run.observation` is the document kept verbatim.
struct StoredRunRow {
  RunRecord run;
  std::optional<std::string> actuals;
};

/// Rebuilds `row.run.observation` from `row.actuals` against `fixtures`'s
/// fixtures and clears the actuals (nothing to do without them). Touches no
/// archive, so any thread may call it. Errors (prefixed by `where`) as
/// outcome_from_actuals_text.
Status rebuild_observation(const Case& fixtures, StoredRunRow& row, const std::string& where);
/// rebuild_observation for each of `rows`, runs of case `fixtures.id`; an
/// Error is prefixed "ARCHIVE: case ID, STRATEGY run actuals" (ARCHIVE is
/// `archive_path`).
Status rebuild_observations(const Case& fixtures, std::vector<StoredRunRow>& rows, const std::string& archive_path);

}  // namespace failmap
