// JSON Lines bundles (schema/BUNDLE.md): a folder holding
//
//   mechanisms.jsonl  one "record": "mechanism" object per line, sorted by id
//   cases.jsonl       one "record": "case" object per line, sorted by case id
//   runs.jsonl        one "record": "run" object per line, case id then strategy order
//   manifest.json     format "failmap-bundle", format_version, failmap_version,
//                     tier, counts per record type, the files, "sha256" of
//                     each file (so a signature over the manifest covers them)
//   manifest.json.sig only when signed (export --sign): the raw 64-byte
//                     Ed25519 signature over manifest.json's bytes
//   SHA256SUMS        coreutils format ("<hex>  <name>\n") of every other file,
//                     so `sha256sum -c` passes inside the folder
// (schema/DIGESTS.md "Bundle digests").
//
// Every line is `dump_compact` of the record (src/encoding/json.h: compact
// separators, Python float repr, insertion-ordered keys) followed by '\n', so
// the same records give the same bytes on every machine. Other engineers
// write their own *.jsonl files (e.g. one per split) with the record
// functions and BundleWriter below.
//
// Access tiers: `tier_shows` is the single rule for what a tier may carry.
// At the open tier nothing of the repaired strategy is written: no source, no
// recorded run, no observation, no digest, no published digest of it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/mechanism.h"
#include "core/result.h"
#include "core/run.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/sha256.h"
#include "io/hashed_folder.h"

namespace failmap {

/// Newest bundle format this failmap reads and the one it writes. Version 2
/// names the export's tier "export_tier" in manifest.json (version 1 said
/// "tier", which a reader could take for the cases' access tier); version 3
/// names each case record's access tier "case_tier" (versions 1 and 2 said
/// "tier", which a reader of an open bundle could take for the export's).
/// Versions 1 and 2 are still read.
inline constexpr int k_bundle_format_version = 3;
/// The member of a bundle's case record holding the case's access tier, from
/// format version 3 (before: the case file's "tier").
inline constexpr const char* k_case_tier_member = "case_tier";
/// The manifest member holding the tier the folder was written at, by format version.
inline constexpr const char* k_export_tier_member = "export_tier";
inline constexpr const char* k_export_tier_member_v1 = "tier";
/// Bundle file names (beside those of every hashed folder, io/hashed_folder.h).
inline constexpr const char* k_mechanisms_file = "mechanisms.jsonl";
inline constexpr const char* k_cases_file = "cases.jsonl";
inline constexpr const char* k_runs_file = "runs.jsonl";
/// Members a bundle's case record carries after the case-file members
/// (schema/DIGESTS.md): failmap's case digest over the record and the runs
/// the bundle carries for the case; the repair salt (member tier only); the
/// repair commitment (both tiers).
inline constexpr const char* k_case_digest_member = "case_digest";
inline constexpr const char* k_repair_salt_member = "repair_salt";
inline constexpr const char* k_repair_commitment_member = "repair_commitment";

/// True when `tier` may show anything of strategy `kind`: the member tier
/// shows all three; the open tier never shows the repaired strategy (its
/// source, observations, digests, or any value derived from them).
bool tier_shows(Tier tier, StrategyKind kind);

/// {"record":"mechanism","id","title","source","evaluation_group","parameters",
/// "default_binding","prose":{…},"fixtures":[{"label","args","expected"}…],
/// "strategies":{"broken":SRC,"unsuccessful":SRC[,"repaired":SRC]}} — the
/// repaired source only at the member tier (tier_shows).
Json mechanism_record(const Mechanism& m, Tier tier);

/// The case-file object of src/io/case_file.h (`case_to_json`) with
/// "record": "case" as first key. Published digests of strategies the tier
/// does not show are left out.
Json case_record(const Case& c, Tier tier);

/// {"record":"run","case","strategy","exit_status","digest","observation",
/// "failmap_version","recorded_at"}; "observation" is the document as a JSON
/// string (its bytes are what the digest covers). Callers check tier_shows.
Json run_record(const RunRecord& r);

/// The case record of a bundle (format version 3) and of a split folder:
/// case_record(c, tier) with its "tier" named "case_tier", in the same place.
Json bundle_case_record(const Case& c, Tier tier);

/// Makes the case record `j` of a bundle of format `version` a case-file
/// object in place, for case_from_json: from version 3 its "case_tier" is
/// renamed "tier" (the member keeps its place); a record of version 3 that
/// says "tier", or of version 1 or 2 that says "case_tier", gives an Input
/// problem at file `where` ("" when the caller names the place itself), line
/// 0, with field NAME to `problems` ("WHERE: field 'NAME': ...") and false.
bool case_record_to_case_json(Json& j, int version, const std::string& where, ProblemSink problems);

/// Appends dump_compact(bundle_case_record(c, tier)) without its closing '}', so
/// the caller can append members ("case_digest", ...) and close it; written
/// directly, without a JSON tree (the export fast path; a unit test holds
/// the two equal).
void append_case_record_open(std::string& out, const Case& c, Tier tier);

/// Appends dump_compact(run_record(r)), written directly.
void append_run_record(std::string& out, const RunRecord& r);

/// A kind of folder failmap writes with a manifest.json and a SHA256SUMS (a
/// "hashed folder"), known by its manifest's "format". `verify-bundle`
/// checks every kind; `import` reads bundles and page exports only.
struct FolderKind {
  std::string_view format;  ///< manifest "format": "failmap-bundle", "failmap-tasks", ...
  std::string_view noun;    ///< what it is called in messages: "bundle", "task export", ...
  int newest_version = 0;   ///< newest manifest "format_version" this failmap reads
  /// True when the manifest names the tier it was written at ("export_tier");
  /// a split folder names one per split, a grading none.
  bool tiered = true;
};

/// The kind of hashed folder whose manifest says "format": `format`, or
/// nullptr for a format failmap does not write. Kinds: failmap-bundle
/// (export --format jsonl), failmap-pages, failmap-tasks, failmap-site,
/// failmap-split (split --out), failmap-grading (grade --out, grade merge).
const FolderKind* find_folder_kind(std::string_view format);

/// Whether run_from_record compares "digest" with the observation's SHA-256
/// (verify-bundle compares it itself, to report both values).
enum class RunDigestCheck { Check, Skip };

/// Reads a "record": "run" object back. Checks the fields' presence and types,
/// the strategy name, exit status 0/1, that `digest` is the SHA-256 of
/// `observation` (unless RunDigestCheck::Skip), and that the observation
/// parses as JSON with a boolean "passed" matching the exit status. Problems
/// go to `problems` as Input problems at `file`:`line` (line 0: `file` is
/// the whole place), each with its field; returns true and fills `out` when
/// there were none.
bool run_from_record(const Json& j, const std::string& file, std::uint64_t line, RunRecord* out, ProblemSink problems,
                     RunDigestCheck check = RunDigestCheck::Check);

/// Replays run record `r` of case `c` through the compiled strategy over
/// the case's fixtures (run_strategy, observation_document: what `failmap
/// run` records and `verify` replays) and compares the record with it: the
/// observation document byte for byte, then the exit status. A bundle's
/// digests are unkeyed and their scheme is public (schema/DIGESTS.md), so a
/// record whose digests were recomputed after an edit is caught only here.
/// Returns nullopt when the record holds exactly the replayed run; else one
/// Mismatch problem at `file`:`line` whose field is the first difference
/// (`observation.observations[i].check|actual|expected|passed`,
/// `observation.passed`, `observation.observations` for another number of
/// checks, `observation` when every value agrees and only the bytes differ —
/// key order, spacing, a number spelled `0.60000000000000009` for
/// `0.6000000000000001`, a trailing newline — or `exit_status`), with
/// expected = the replayed value, found = the record's, and a message that
/// names the case, the strategy and up to four differences. An Input problem
/// when the strategy cannot run (a mechanism not compiled in).
std::optional<InputProblem> replay_run_record(const Case& c, const RunRecord& r, const std::string& file,
                                              std::uint64_t line);

/// Reads a "record": "mechanism" object and checks that it equals the
/// compiled-in mechanism's record at `tier` (bundles cannot define
/// mechanisms; they must agree with this build). Problems go to `problems`
/// as Mismatch problems at `file`:`line` (line 0: `file` is the whole
/// place), each with its field.
bool check_mechanism_record(const Json& j, Tier tier, const std::string& file, std::uint64_t line,
                            ProblemSink problems);

/// Writes a bundle-like folder (a bundle, a page or task export, a site):
/// JSONL files line by line and whole files, counted per record type for
/// the manifest's "counts", through a HashedFolderWriter (which streams,
/// hashes, stages and seals). The folder must not exist or be empty.
class BundleWriter {
 public:
  /// Checks `dir` and makes its staging folder (HashedFolderWriter::create:
  /// a non-empty `dir` is "DIR: folder is not empty (export writes into a
  /// new or empty folder)"). `format` names the manifest's format
  /// ("failmap-bundle" for JSONL bundles, "failmap-pages" for page exports,
  /// "failmap-tasks", "failmap-site").
  static Result<std::unique_ptr<BundleWriter>> create(const std::filesystem::path& dir, Tier tier,
                                                      std::string format = "failmap-bundle");
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  /// Appends dump_compact(record) + '\n' to `file` (opened on first use) and
  /// counts it under the record's "record" value.
  Status write_record(const std::string& file, const Json& record);
  /// Appends `line` — one record's JSON text followed by '\n' — to `file`
  /// (opened on first use) and counts it as a `kind` record.
  Status write_line(const std::string& file, std::string_view line, std::string_view kind);
  /// Writes a whole file (e.g. a page) and counts it under `count_as`.
  Status write_file(const std::string& file, std::string_view content, const std::string& count_as);
  /// Counts each of `kinds` in the manifest also when no record of it is
  /// written: `"run":0`, never an absent member (schema/BUNDLE.md).
  void declare_counts(const std::vector<std::string>& kinds) {
    for (const std::string& k : kinds) m_counts.emplace(k, 0);
  }
  /// Makes finish() sign manifest.json with the Ed25519 private key in PEM
  /// file `key_pem` (encoding/signature.h), writing manifest.json.sig.
  void sign_with(std::filesystem::path key_pem) { m_sign_key = std::move(key_pem); }
  /// Closes every file, writes manifest.json (format, k_bundle_format_version,
  /// the tier, the counts), manifest.json.sig when signing, and SHA256SUMS;
  /// then runs `before_commit` (export's interrupt check) and, unless it
  /// fails, moves the folder into place. Files named in `ensure` are created
  /// empty if unused, so a bundle always has its three JSONL files.
  Status finish(const std::vector<std::string>& ensure = {}, const std::function<Status()>& before_commit = {});

 private:
  BundleWriter(HashedFolderWriter folder, Tier tier, std::string format);
  /// The handle of `file`, opened on first use.
  Result<std::size_t> open(const std::string& file);
  HashedFolderWriter m_folder;
  Tier m_tier;
  std::string m_format;
  std::map<std::string, std::size_t, std::less<>> m_handles;  ///< open files: name → handle
  std::map<std::string, std::uint64_t, std::less<>> m_counts;
  std::optional<std::filesystem::path> m_sign_key;
  std::string m_line;  // reused buffer
};

/// A bundle's manifest.json, read and checked.
struct BundleManifest {
  std::string format;  ///< a FolderKind's format: "failmap-bundle", "failmap-pages", ...
  int format_version = 0;
  std::string failmap_version;
  Tier tier = Tier::Open;  ///< the tier it was written at; meaningful when `tiered`
  bool tiered = true;      ///< false: a split folder or a grading, whose manifest names no one tier
  std::map<std::string, std::uint64_t> counts;  ///< per record type
  std::vector<std::string> files;               ///< data files, sorted
  /// From a split folder's manifest: "splits"[].name and .items, in order.
  std::vector<std::pair<std::string, std::uint64_t>> split_items;
};

/// Checks a bundle folder's files before any record is read: manifest.json
/// parses, has a known format and a format_version this failmap reads (a
/// newer one is an Input problem naming both), lists exactly the folder's
/// data files with their SHA-256 ("sha256"), and SHA256SUMS is well-formed
/// coreutils text listing exactly the folder's files (manifest.json and
/// manifest.json.sig included, nothing missing or extra, plain names only)
/// with matching hashes (check_sums, io/hashed_folder.h). Gives every
/// problem to `problems`, in the order found; returns the
/// manifest unless nothing further can be checked: no such folder, no
/// manifest.json (then that is the only problem: a folder that is no bundle
/// is not listed file by file), manifest.json or SHA256SUMS unreadable, a
/// manifest that is no JSON object or whose format, format_version or tier
/// is missing, unknown or newer. Other problems of the manifest (its counts,
/// files or sha256 members) are Input problems beside a returned manifest:
/// callers that need a whole manifest check `problems`. With `hash_files`
/// false the files are not read and no hash is compared (everything else
/// is checked): import checks the hashes beside its reading of the records.
/// With `any_kind` every FolderKind is read (verify-bundle): a split
/// folder's manifest gives its "files" as an object of name → SHA-256 and no
/// counts; a grading's names no tier. Without it only bundles and page
/// exports are (import), and another kind is an unusable-input problem
/// naming what it is.
std::optional<BundleManifest> check_bundle_files(const std::filesystem::path& dir, ProblemSink problems,
                                                 bool hash_files = true, bool any_kind = false);

/// check_bundle_files for readers that accept only a flawless bundle
/// (import): every problem goes to `problems`, in the order found; an Error
/// ("DIR: not a valid bundle") unless there were none.
Result<BundleManifest> check_bundle(const std::filesystem::path& dir, ProblemSink problems, bool hash_files = true);

}  // namespace failmap
