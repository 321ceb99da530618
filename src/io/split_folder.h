// Split folders (schema/SPLITS.md "Output folder"): writing failmap's own,
// reading failmap's or hand-made ones for `split check`, and the content
// digest `--group-by content` links by.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/split.h"
#include "encoding/sha256.h"

namespace failmap {

/// Version of the split folder format (manifest.json "format_version").
/// Version 2: each split of "splits" names its `export_tier`, and case
/// records name the case's access tier "case_tier" (version 1 said "tier",
/// the split's tier for an open split, the case's in train).
inline constexpr int k_split_format_version = 2;

/// The content digest of a case: SHA-256 (raw; its lower-case hex is what
/// "content:<sha256>" link keys spell) over, for each fixture in order,
/// `json.dumps([args, expected], ensure_ascii=False)` plus "\n".
/// Labels, ids, mechanism and prose are left out, so the same checks filed
/// under another id or mechanism give the same digest; ints and floats stay
/// distinct (1 vs 1.0), as Python prints them.
Sha256Bytes case_content_digest(const Case& c);

/// One claim read from a split folder, with where it was read.
struct FolderClaim {
  SplitClaim claim;
  std::string where;       ///< "FILE:LINE"
  std::uint32_t file = 0;  ///< index of FILE among the folder's *.jsonl files in name order
};

/// An id that one file of a split folder claims more than once for the same
/// split, e.g. listed twice in train.jsonl.
struct DuplicateClaim {
  std::string id;
  std::string split;
  std::vector<std::string> where;  ///< "FILE:LINE" of each such line, in line order
};

/// Every id claimed more than once for one split within one file
/// (schema/SPLITS.md "Leakage audit"), sorted by split, then id, then file.
/// Claims in different files are not compared: failmap's own folder claims
/// each item in its split's file and again in assignments.jsonl. Pure; the
/// order of `claims` within a file is kept in `where`.
std::vector<DuplicateClaim> duplicate_claims(const std::vector<FolderClaim>& claims);

/// Reads every DIR/*.jsonl file (in name order): an entry so named that is
/// not a file (a dangling link, a FIFO, a folder) is an Input error naming
/// it, never skipped. Each line is a JSON object;
/// lines with "record":"run" are skipped (their case has its own line);
/// every other line needs an "id" (string or integer: claims carry its JSON
/// spelling when `json_ids`, the plain string otherwise). A line's split is
/// its "split" field, or the file's stem ("test.jsonl" -> "test") without
/// one; but in a split's file (one of whose lines is thus in the split its
/// stem names, other than assignments.jsonl) every line is in that split,
/// whatever its "split" field says. If DIR/SHA256SUMS exists, every file it names
/// must match: a mismatch is a Mismatch error. Input errors name FILE:LINE.
Result<std::vector<FolderClaim>> read_split_folder(const std::filesystem::path& dir, bool json_ids);

}  // namespace failmap
