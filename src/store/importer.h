// Import: read every input, validate everything, then write once in one
// transaction (STYLE.md rule 4). Inputs are case files (*.json), folders of
// them (recursively, in path order), and the formats later issues add.
#pragma once

#include <string>
#include <vector>

#include "core/case.h"
#include "core/progress.h"
#include "store/archive.h"

namespace failmap {

/// A case read from an input, with where it came from (for messages).
struct ImportItem {
  Case record;
  std::string source;  ///< file path (and line, for bundles)
};

/// Reads every path: a *.json case file, or a folder whose *.json files are
/// read recursively in byte order of their paths. Appends one message per
/// problem to `errors` (all of them, not just the first); `items` gets every
/// case that read cleanly.
/// `progress` gets 1 per file read.
void collect_import_items(const std::vector<std::string>& paths, std::vector<ImportItem>* items,
                          std::vector<std::string>* errors, const ProgressFn& progress = {});

/// How import treats an id that already exists with different content.
enum class OnConflict { Refuse, Replace };

/// What an import did, ids in input order.
struct ImportReport {
  std::vector<std::string> added;
  std::vector<std::string> unchanged;  ///< identical content already present
  std::vector<std::string> replaced;
};

/// Writes the items in one transaction after checking all of them: duplicate
/// ids within the input and (with OnConflict::Refuse) ids already archived
/// with different content are errors appended to `errors`, and then nothing
/// is written. Returns the report, or an Error (storage failure, or
/// "N problem(s)" when `errors` was appended to). `progress` gets 1 per
/// item checked and 1 per item written (2 x items.size() in all).
Result<ImportReport> import_items(Archive& archive, const std::vector<ImportItem>& items, OnConflict on_conflict,
                                  std::vector<std::string>* errors, const ProgressFn& progress = {});

/// True when two cases have identical content (every stored field).
bool same_case_content(const Case& a, const Case& b);

}  // namespace failmap
