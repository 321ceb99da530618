// Export: the archive as a JSONL bundle or as published pages
// (schema/BUNDLE.md, src/io/bundle.h, src/io/page.h). Streaming: cases are
// read in batches of 1,024 in id order (at most three batches in memory,
// whatever the archive's size), rendered on `jobs` threads and written in id
// order. Deterministic: the same archive gives the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "io/task.h"
#include "store/archive.h"

namespace failmap {

/// What to export and where.
struct ExportOptions {
  Tier tier = Tier::Open;
  std::vector<std::string> ids;  ///< empty: every case
  /// A new or empty folder. The export is written into a hidden sibling
  /// folder and renamed to `out` only once complete: on any failure nothing
  /// is left at `out` (an empty folder that was there stays as it was).
  std::filesystem::path out;
  /// When set, manifest.json is signed with this Ed25519 private key (PEM)
  /// into manifest.json.sig (schema/DIGESTS.md "Signature"). The key is
  /// checked before anything is written.
  std::optional<std::filesystem::path> sign_key = std::nullopt;
  /// Threads: the calling one reads the archive, one worker writes the
  /// files, all render records (or pages); the bytes are the same for
  /// every value (>= 1).
  unsigned jobs = 2;
  /// The prompt template of task records (export_tasks; schema/TASKS.md
  /// "Prompt"): parse_prompt_template of its text, or the default.
  std::optional<PromptTemplate> prompt = std::nullopt;
  /// export_site: grading folders (`failmap grade --out`) whose models the
  /// site's leaderboard.html shows (read_grading_folder, io/leaderboard.h);
  /// empty: no leaderboard.
  std::vector<std::filesystem::path> results = {};
};

/// What an export wrote.
struct ExportReport {
  std::uint64_t mechanisms = 0, cases = 0, runs = 0, pages = 0, tasks = 0;
};

/// The case digest over a case read by a CasesRunsSeals scan and all its
/// recorded runs (schema/DIGESTS.md), checked against the one the archive
/// stores, as `verify` does but without replaying the runs
/// (checked_case_digest): a case or run changed in the archive after it was
/// digested (an edit by hand, a damaged copy) is refused rather than written
/// out under a fresh digest, by export and by split alike. Rebuilds the
/// runs' observations from their stored actual values first
/// (rebuild_observation), and refuses published digests a bundle or page
/// could not hold. Errors name `path` and the case and end with
/// `consequence` ("Nothing was exported."). A run whose stored values do not
/// decode names the command that works (unreadable_run_advice): exactly
/// (run_refusal) when `archive` is given, which only the thread that owns
/// it may pass; both, with the condition, otherwise. Returns the digest, 64
/// hex digits. `every_case`: the command reads every case and stops at the
/// first refused, so a run that does not decode is refused
/// with_other_unreadable_runs (with `archive` only).
Result<std::string> checked_archived_case(ArchivedCase& a, const std::string& path, std::string_view consequence,
                                          Archive* archive = nullptr, bool every_case = false);

/// For a command that checked case `a` on a thread without the archive
/// (checked_archived_case without `archive`) and met the Error `refusal`:
/// the case checked again with `archive`, so that the refusal names the
/// command that works (the cases sharing a changed text, the discarding of
/// a run that does not decode); `refusal` itself when that check passes
/// (the Error came from elsewhere) and when it is not an Error. Only the
/// thread that owns `archive` may call it. `every_case` as for
/// checked_archived_case.
Status advised_refusal(Archive& archive, ArchivedCase& a, Status refusal, std::string_view consequence,
                       bool every_case);

/// Writes mechanisms.jsonl, cases.jsonl, runs.jsonl, manifest.json and
/// SHA256SUMS into `options.out`. Runs and published digests of strategies the
/// tier does not show are left out (tier_shows). Each case record ends with
/// "case_digest" (over the record and the runs the bundle carries for it),
/// "repair_salt" (member tier only) and "repair_commitment"
/// (schema/DIGESTS.md "Bundle digests", "Repair commitments"). Unknown ids are errors
/// (all of them named) and nothing is written; a failure midway leaves
/// nothing at `options.out` (ExportOptions::out).
Result<ExportReport> export_jsonl(Archive& archive, const ExportOptions& options);

/// Writes one page per case, named <case id>.txt, plus manifest.json (format
/// "failmap-pages") and SHA256SUMS.
Result<ExportReport> export_pages(Archive& archive, const ExportOptions& options);

/// Writes tasks.jsonl (one task record per case, in id order: task_line of
/// src/io/task.h), manifest.json (format "failmap-tasks") and SHA256SUMS. A
/// task's `unit` is its case's split unit over the whole archive
/// (link_case: mechanism and evaluation_group, schema/SPLITS.md "Units").
/// Cases are checked as export_jsonl checks them (checked_archived_case).
Result<ExportReport> export_tasks(Archive& archive, const ExportOptions& options);

/// The split unit key of every case of the archive (link_case over all of
/// them: "mechanism:ID" or "group:TAG"), as (id, unit) in id order.
Result<std::vector<std::pair<std::string, std::string>>> archive_case_units(Archive& archive);

}  // namespace failmap
