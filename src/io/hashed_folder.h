// Hashed folders: the folders failmap writes with a manifest.json and a
// SHA256SUMS over their files (bundles, page and task exports, sites, split
// folders, gradings; schema/BUNDLE.md "manifest.json"): the names of those
// files, the manifest's header, the end every kind of folder is sealed with,
// the writer of a folder staged and moved into place, and the check of a
// SHA256SUMS.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "encoding/input_problem.h"
#include "encoding/staging.h"

namespace failmap {

/// The files every hashed folder holds beside its data files.
inline constexpr const char* k_manifest_file = "manifest.json";
inline constexpr const char* k_sums_file = "SHA256SUMS";
inline constexpr const char* k_signature_file = "manifest.json.sig";

/// The members of a hashed folder's manifest.json other than its files:
/// {"format", "format_version", "failmap_version", ["export_tier",] "counts",
/// "files", "sha256"} in this order (schema/BUNDLE.md "manifest.json").
struct ManifestHeader {
  std::string format;
  int format_version = 0;
  std::optional<Tier> tier;                     ///< written as "export_tier" when set
  std::map<std::string, std::uint64_t> counts;  ///< per record type; a type with 0 is written as 0
};

/// The manifest.json text (one compact JSON object and "\n") of a folder
/// whose data files have the SHA-256 hex digests `hashes` (name → hex):
/// the header's members, "files" (the names in byte order) and "sha256".
std::string manifest_text(const ManifestHeader& header, const std::map<std::string, std::string>& hashes);

/// Version of the manifest.json of a grading folder (`failmap grade --out`,
/// schema/GRADING.md "Manifest").
inline constexpr int k_grading_manifest_version = 1;

/// The manifest header of a grading folder holding `results` results lines:
/// format "failmap-grading", k_grading_manifest_version, counts {"result": N}.
inline ManifestHeader grading_manifest_header(std::uint64_t results) {
  return ManifestHeader{"failmap-grading", k_grading_manifest_version, std::nullopt, {{"result", results}}};
}

/// Completes a hashed folder `dir` whose data files are written: writes
/// manifest.json with exactly `manifest` (its text), manifest.json.sig when
/// `sign_key` names an Ed25519 private key (PEM; the raw 64-byte signature
/// over manifest.json, encoding/signature.h), then SHA256SUMS over `hashes` and
/// those two in coreutils format, names in byte order. The one writer of the
/// end of every kind of folder (bundles, pages, tasks, sites, splits,
/// gradings). Input errors name the file that could not be written or the key.
Status seal_folder(const std::filesystem::path& dir, std::string_view manifest,
                   std::map<std::string, std::string> hashes, const std::optional<std::filesystem::path>& sign_key);

/// Writes the files of a hashed folder — a bundle, page, task or site export
/// (through BundleWriter, io/bundle.h), a split folder, a grading — and,
/// last, its manifest.json and SHA256SUMS over them in coreutils format
/// ("HEX  NAME\n", names in byte order) so that `cd DIR && sha256sum -c
/// SHA256SUMS` passes. The files go into a hidden sibling of DIR
/// (StagingFolder) that commit() renames to DIR: until then, and after any
/// error, nothing appears at DIR, and destroying the writer removes what was
/// written. Memory: one 1 MiB buffer per open() file and a digest per file,
/// whatever the files' sizes. File names are plain (no '/'), not hidden (no
/// leading '.') and not those finish() writes; each is written once.
class HashedFolderWriter {
 public:
  /// Checks DIR (absent, or an empty folder: stale files of an earlier split
  /// would otherwise be audited with the new ones) and makes its staging
  /// folder (missing parents included). Input errors name DIR; a non-empty
  /// DIR is "DIR: folder is not empty (" + `not_empty_hint` + ")". `what`
  /// names the output in commit()'s error ("cannot move the grading into
  /// place").
  static Result<HashedFolderWriter> create(const std::filesystem::path& dir, std::string what = "split",
                                           std::string_view not_empty_hint = "choose a new --out");
  /// Starts file DIR/`name`, to be filled by append() and completed by
  /// close_files(); returns its handle (0, 1, ... in call order). An Input
  /// error when the file cannot be created or `name` is not allowed or was
  /// used before. `listed` false leaves the file out of SHA256SUMS and the
  /// manifest, as write_unlisted() does (grade's cpu.jsonl).
  Result<std::size_t> open(const std::string& name, bool listed = true);
  /// Appends `bytes` to the file of `handle` (from open()): gathered in a
  /// 1 MiB buffer, then hashed and written a block at a time, so the file's
  /// SHA-256 is that of every byte appended, in order. An Input error naming
  /// DIR/NAME when writing failed (e.g. the disk is full).
  Status append(std::size_t handle, std::string_view bytes);
  /// Writes the rest of every open() file and closes it; the SHA-256 of a
  /// listed one joins digests(). Input errors as append().
  Status close_files();
  /// Writes DIR/name with exactly `bytes` and remembers its SHA-256 (only
  /// the digest is kept: a million pages cost a million digests, not a
  /// million open streams). Input errors as open().
  Status write(const std::string& name, std::string_view bytes);
  /// Writes DIR/name with exactly `bytes`, left out of SHA256SUMS: a note
  /// about how the output was made (grade's record.json, cpu.jsonl) that may
  /// differ between runs writing the same listed bytes.
  Status write_unlisted(const std::string& name, std::string_view bytes);
  /// Completes the folder in its staging place (seal_folder): closes the
  /// open() files, writes DIR/manifest.json — manifest_text(header,
  /// digests()): format, format_version, failmap_version, counts, and every
  /// listed file with its SHA-256 —, DIR/manifest.json.sig when `sign_key`
  /// names an Ed25519 private key (PEM), and DIR/SHA256SUMS over all of
  /// them. Input errors: a file that cannot be written, an unusable key;
  /// nothing is then left at DIR. Nothing can be written after it.
  Status seal(const ManifestHeader& header, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// seal() with the manifest's text given whole (a split folder's manifest
  /// holds more than the header: schema/SPLITS.md).
  Status seal(std::string_view manifest, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// Moves the sealed folder into place at DIR (StagingFolder::commit).
  Status commit();
  /// seal(), then commit().
  Status finish(const ManifestHeader& header, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// seal() of a whole manifest text, then commit().
  Status finish(std::string_view manifest, const std::optional<std::filesystem::path>& sign_key = std::nullopt);
  /// (name, SHA-256 hex) of every listed file written or closed so far, in name order.
  std::vector<std::pair<std::string, std::string>> digests() const;

  HashedFolderWriter(HashedFolderWriter&&) noexcept;
  ~HashedFolderWriter();

 private:
  struct Stream;
  HashedFolderWriter(StagingFolder staging, std::filesystem::path dir, std::string what);
  /// DIR/name as the user named DIR, for messages.
  std::string shown(const std::string& name) const { return (m_dir / name).string(); }
  /// An Input error when `name` may not be written (see the class) or was written before.
  Status check_name(const std::string& name) const;
  StagingFolder m_staging;
  std::filesystem::path m_dir;  ///< DIR as given
  std::string m_what;           ///< what the folder holds, for commit()'s error
  std::vector<std::unique_ptr<Stream>> m_streams;
  std::map<std::string, std::string> m_digests;  ///< listed files: name → SHA-256 hex
  std::vector<std::string> m_unlisted;           ///< write_unlisted() names
};

/// True for a file a folder of manifest format `format` may hold that
/// neither SHA256SUMS nor manifest.json lists: a grading's record.json and
/// cpu.jsonl, which differ between runs writing the same results
/// (schema/GRADING.md "Recording", "cpu.jsonl").
bool unlisted_note(std::string_view format, std::string_view name);

/// The SHA-256 of the files of one folder, each read at most once (shared by
/// the checks of a folder's manifest and of its SHA256SUMS).
class FolderDigests {
 public:
  explicit FolderDigests(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  /// The lower-case hex SHA-256 of DIR/`name`; nullptr when it cannot be
  /// read, which is an Input problem at DIR/NAME (hash_file's message) added
  /// to `problems` the first time only.
  const std::string* of(const std::string& name, ProblemSink& problems);

 private:
  std::filesystem::path m_dir;
  std::map<std::string, std::optional<std::string>> m_hex;  ///< nullopt: unreadable (reported)
};

/// What check_sums compares besides SHA256SUMS's own text.
struct SumsCheck {
  /// The folder's manifest format ("" when not known): a grading's unlisted
  /// notes (unlisted_note) may be absent from SHA256SUMS.
  std::string_view format;
  /// Why a file's SHA-256 may differ, named in the problem: "file changed or
  /// corrupt", "file changed since the grading wrote it", ...
  std::string_view changed = "file changed or corrupt";
  /// The folder's plain files, when the caller has listed them (it then
  /// reports the folder's other entries itself); nullptr: check_sums lists
  /// DIR, whose plain files are those that are neither links nor folders.
  const std::set<std::string>* files = nullptr;
  /// false: no file is read and no SHA-256 compared (everything else is).
  bool hash_files = true;
  /// The digests to reuse and fill; nullptr: check_sums keeps its own.
  FolderDigests* digests = nullptr;
};

/// Checks DIR/SHA256SUMS: coreutils `sha256sum` text, one "HEX  NAME" (text
/// mode) or "HEX *NAME" (binary mode) per line, HEX 64 lower-case hex
/// characters, a CR before the line end and one UTF-8 BOM at the start of
/// the file tolerated; it must list exactly DIR's plain files but itself
/// (unlisted notes of `check.format` aside), each once, with its SHA-256.
/// Problems, in the order found (the lines, then the files not listed):
///  - Input at DIR: "no such folder" / "not a folder" (only when DIR is listed here);
///  - Input at DIR/SHA256SUMS: "missing", or read_file's error; nothing more is checked;
///  - Input at DIR/SHA256SUMS:LINE: "expected '<sha256 hex>  <file name>'", a BOM (k_bom_refused, k_second_bom);
///  - Mismatch at DIR/SHA256SUMS:LINE: "'NAME' is not a file SHA256SUMS may list" (a path, "." or "..",
///    SHA256SUMS itself), "'NAME' is listed twice", "'NAME' is missing from the folder", "'NAME' is not a
///    plain file", "'NAME': SHA-256 does not match (CHANGED)" with expected (the line's) and found (the file's);
///  - Input at DIR/NAME: a listed file that cannot be read;
///  - Mismatch at DIR/NAME: "not listed in SHA256SUMS".
/// Stops as soon as `problems` has stopped (ProblemSink::first_only). Returns
/// false when SHA256SUMS (or DIR) could not be read, true when its lines were checked.
bool check_sums(const std::filesystem::path& dir, const SumsCheck& check, ProblemSink problems);

/// check_sums for commands that need a flawless folder of manifest format
/// `format` ("failmap-split": split check and grade --split;
/// "failmap-grading": grade merge and compare): its first problem as an
/// Error (Kind::Mismatch for a Mismatch problem), describe() of it; the
/// changed file's cause is "file changed after the split" or "file changed
/// since the grading wrote it".
Status verify_sums(const std::filesystem::path& dir, std::string_view format);

}  // namespace failmap
