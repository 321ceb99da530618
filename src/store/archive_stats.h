// What the archive holds, in the terms a split and a curator need
// (`failmap stats`, docs/stats.md): cases per mechanism, the split units
// (mechanism and evaluation_group links, as `split` builds them,
// schema/SPLITS.md "Units"), the largest unit and its share of the cases (the
// balance bound of every split), recorded runs per strategy, and the sets of
// cases with identical content (case_content_digest: the same checks, as
// `split --group-by content` links them).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/archive.h"

namespace failmap {

/// Two or more cases with the same content.
struct DuplicateContent {
  std::string content;           ///< the content digest, 64 lower-case hex
  std::vector<std::string> ids;  ///< the cases holding it, in id order
};

/// The largest split unit: the first, in key order, of the largest size.
struct LargestUnit {
  std::string key;          ///< the unit's key, e.g. "group:schedules"
  std::uint32_t cases = 0;  ///< its cases
  double share = 0;         ///< cases / all cases of the archive, in [0, 1]
};

/// The counts of one archive state.
struct ArchiveStats {
  std::int64_t cases = 0;
  /// Cases per mechanism id, ordered by id (mechanisms without cases absent).
  std::map<std::string, std::int64_t> cases_by_mechanism;
  std::size_t units = 0;                    ///< split units (0 without cases)
  std::optional<LargestUnit> largest_unit;  ///< none without cases
  /// Recorded runs per strategy, indexed by StrategyKind; a case misses
  /// cases - runs_by_strategy[k] runs of strategy k.
  std::array<std::int64_t, 3> runs_by_strategy{};
  std::int64_t runs_recorded = 0;  ///< the sum of runs_by_strategy
  std::int64_t runs_possible = 0;  ///< cases x the three strategies
  /// Content units of two or more cases, in content digest order.
  std::vector<DuplicateContent> duplicates;
  std::size_t duplicate_cases = 0;  ///< the cases of every duplicate set
};

/// Counts `archive` in one read snapshot (every number of one state).
/// Errors: the store's, a stored row that no longer decodes
/// (load_archive_items).
Result<ArchiveStats> archive_stats(Archive& archive);

}  // namespace failmap
