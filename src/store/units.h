// The archive's cases grouped into split units (schema/SPLITS.md "Units"):
// the first pass of `split` over the archive, also what `split check`,
// `stats` and `instantiate` (content already in the archive) read.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/split.h"
#include "store/archive.h"

namespace failmap {

/// What load_archive_items builds: the units of a split (--group-by tags,
/// or content), or (Check) the units, the ids and the content partition.
enum class ItemsFor { Split, SplitByContent, Check };

/// The archive's cases grouped into units (and, for Check, by content).
struct ArchiveItems {
  std::vector<std::string> ids;  ///< id order; Check only
  Partition units;               ///< item i is the i-th case in id order
  /// One unit per distinct content digest (case_content_digest, keys
  /// "content:<hex>" in key order); Check only.
  Partition content;
};

/// One streaming pass over the archive in id order (only the columns units
/// need, Archive::CaseFields::Split, a batch at a time): per case its unit
/// links and, when content counts, its 32-byte content digest. Errors: an
/// archive without cases (Input, "import some first"), more than 2^32 - 1
/// cases, an archive that changed while read, or a stored row that no longer
/// decodes (as load_case).
Result<ArchiveItems> load_archive_items(Archive& archive, ItemsFor what);

}  // namespace failmap
