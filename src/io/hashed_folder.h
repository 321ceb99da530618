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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/result.h"
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

/// Checks DIR/SHA256SUMS (coreutils format, as HashedFolderWriter writes it):
/// every file it names exists in DIR and has that SHA-256. Input errors:
/// SHA256SUMS missing or malformed, a name that leaves DIR; a Mismatch error
/// "DIR/NAME: SHA-256 differs from SHA256SUMS (CHANGED)" for a changed file,
/// CHANGED saying what wrote the folder: "file changed after the split" for a
/// split folder, "file changed since the grading wrote it" for grade's.
/// A DIR that does not exist or is not a folder is an Input error saying so.
Status verify_sums(const std::filesystem::path& dir, std::string_view changed = "file changed after the split");

}  // namespace failmap
