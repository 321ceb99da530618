// Split folders (schema/SPLITS.md "Output folder"): writing failmap's own,
// reading failmap's or hand-made ones for `split check`, and the content
// digest `--group-by content` links by.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/split.h"
#include "encoding/sha256.h"
#include "encoding/staging.h"
#include "io/bundle.h"

namespace failmap {

/// Version of the split folder format (manifest.json "format_version").
/// Version 2: each split of "splits" names its `export_tier`, and case
/// records name the case's access tier "case_tier" (version 1 said "tier",
/// the split's tier for an open split, the case's in train).
inline constexpr int k_split_format_version = 2;

/// Writes the files of a hashed folder — a split folder, a grading — and,
/// last, its manifest.json and SHA256SUMS over them in coreutils format ("HEX  NAME\n", names in byte order) so that
/// `cd DIR && sha256sum -c SHA256SUMS` passes. The files go into a hidden
/// sibling of DIR (StagingFolder) that finish() renames to DIR: until then,
/// and after any error, nothing appears at DIR, and destroying the writer
/// removes what was written. Memory: one 1 MiB buffer per open() file and a
/// digest per file, whatever the files' sizes.
class SplitFolderWriter {
 public:
  /// Checks DIR (absent, or an empty folder: stale files of an earlier split
  /// would otherwise be audited with the new ones) and makes its staging
  /// folder (missing parents included). Input errors name DIR. `what` names
  /// the output in finish()'s error ("cannot move the grading into place").
  static Result<SplitFolderWriter> create(const std::filesystem::path& dir, std::string what = "split");
  /// Starts file DIR/`name`, to be filled by append() and completed by
  /// close_files(); returns its handle (0, 1, ... in call order). An Input
  /// error when the file cannot be created or `name` was used before.
  /// `listed` false leaves the file out of SHA256SUMS and the manifest, as
  /// write_unlisted() does (grade's cpu.jsonl).
  Result<std::size_t> open(const std::string& name, bool listed = true);
  /// Appends `bytes` to the file of `handle` (from open()): gathered in a
  /// 1 MiB buffer, then hashed and written a block at a time, so the file's
  /// SHA-256 is that of every byte appended, in order. An Input error naming
  /// DIR/NAME when writing failed (e.g. the disk is full).
  Status append(std::size_t handle, std::string_view bytes);
  /// Writes the rest of every open() file and closes it; the SHA-256 of a
  /// listed one joins digests(). Input errors as append().
  Status close_files();
  /// Writes DIR/name with exactly `bytes` and remembers its SHA-256.
  Status write(const std::string& name, std::string_view bytes);
  /// Writes DIR/name with exactly `bytes`, left out of SHA256SUMS: a note
  /// about how the output was made (grade's record.json, cpu.jsonl) that may
  /// differ between runs writing the same listed bytes.
  Status write_unlisted(const std::string& name, std::string_view bytes);
  /// Completes the folder (seal_folder, io/bundle.h): writes DIR/manifest.json
  /// — manifest_text(header, digests()): format, format_version,
  /// failmap_version, counts, and every file written or closed so far with
  /// its SHA-256 —, DIR/manifest.json.sig when `sign_key` names an Ed25519
  /// private key (PEM), and DIR/SHA256SUMS over all of them; then moves the
  /// folder into place at DIR (StagingFolder::commit). Call after
  /// close_files(). Input errors: a file that cannot be written, an
  /// unusable key; nothing is then left at DIR.
  Status finish(const ManifestHeader& header, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// finish() with the manifest's text given whole (a split folder's
  /// manifest holds more than the header: schema/SPLITS.md).
  Status finish(std::string_view manifest, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// (name, SHA-256 hex) of every file written or closed so far, in name order.
  std::vector<std::pair<std::string, std::string>> digests() const;

  SplitFolderWriter(SplitFolderWriter&&) noexcept;
  ~SplitFolderWriter();

 private:
  struct Stream;
  SplitFolderWriter(StagingFolder staging, std::filesystem::path dir, std::string what);
  /// DIR/name as the user named DIR, for messages.
  std::string shown(const std::string& name) const { return (m_dir / name).string(); }
  StagingFolder m_staging;
  std::filesystem::path m_dir;  ///< DIR as given
  std::string m_what;           ///< what the folder holds, for finish()'s error
  std::vector<std::unique_ptr<Stream>> m_streams;
  std::vector<std::pair<std::string, std::string>> m_digests;
};

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

/// Checks DIR/SHA256SUMS (coreutils format, as SplitFolderWriter writes it):
/// every file it names exists in DIR and has that SHA-256. Input errors:
/// SHA256SUMS missing or malformed, a name that leaves DIR; a Mismatch error
/// "DIR/NAME: SHA-256 differs from SHA256SUMS (CHANGED)" for a changed file,
/// CHANGED saying what wrote the folder: "file changed after the split" for a
/// split folder, "file changed since the grading wrote it" for grade's.
/// A DIR that does not exist or is not a folder is an Input error saying so.
Status verify_sums(const std::filesystem::path& dir, std::string_view changed = "file changed after the split");

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
