// Import: every input of one command goes into one transaction; every problem
// of every input is collected, and if there was any the transaction is rolled
// back, so a refused import leaves the archive exactly as before: validate
// everything, report every problem, then fail once. Inputs are dispatched by kind:
//
//   *.txt                        a published case page (src/io/page.h)
//   a folder with manifest.json  a JSONL bundle (src/io/bundle.h)
//   *.json                       a case file (src/io/case_file.h)
//   any other folder             its entries, recursively, in byte order of path
//
// Records stream through an ImportSession, so memory does not grow with the
// input beyond the set of ids seen (for duplicate detection).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/case.h"
#include "core/progress.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "io/page.h"
#include "store/archive.h"

namespace failmap {

/// How import treats an id that already exists with different content:
/// refuse the import, replace the case (previous version to history), or
/// skip it (the archive's version and its runs left as they are, the input's
/// runs of it not recorded, and the case reported).
enum class OnConflict { Refuse, Replace, Skip };
/// How a page whose tables disagree with failmap's computation is treated.
enum class OnDisagreement { Refuse, Force };

/// Options of one import.
struct ImportOptions {
  OnConflict on_conflict = OnConflict::Refuse;
  OnDisagreement on_disagreement = OnDisagreement::Refuse;
  /// Keep the ids of added/unchanged/replaced cases in the report (off for
  /// million-case generation, where only the counts are wanted).
  bool keep_ids = true;
  /// Detect the same id given twice within the input (needs one set entry
  /// per id; callers that generate unique ids may turn it off).
  bool check_duplicates = true;
  /// Find the cases this import adds whose checks (the fixture_values text
  /// of their rows, schema/006: the [args, expected] pairs as json.dumps
  /// spells them, what the case digest covers) equal those of a case the
  /// archive held before it, under another id (ImportReport::same_content):
  /// a case published twice, which a split would otherwise put on both
  /// sides. Costs one SHA-256 per added case and, when the archive held
  /// cases, one scan of their fixture texts at finish().
  bool find_same_content = false;
  /// Gets 1 per case read (for a progress bar); may be empty.
  ProgressFn progress;
  /// Threads a bundle's JSON Lines are prepared on: with N > 1, N worker
  /// threads read, parse, check and convert the lines and compute the
  /// digests of cases, while the calling thread does only the archive's
  /// work, in line order (N + 1 threads in all, as `run --all --jobs N`
  /// evaluates on N threads while SQLite is stepped); N = 1 does everything
  /// on the calling thread. The result (archive rows, report, every problem
  /// and its order) is the same for every N.
  unsigned jobs = 2;
};

/// What ImportSession::add_case computes for a new case, computed beforehand:
/// its digests (compute_case_digests(c, {}): a new case has no runs) and,
/// when they could be computed, its row texts (case_insert_texts).
struct PreparedCase {
  Result<CaseDigests> digests = CaseDigests{};
  CaseInsertTexts texts;
};

/// Computes a PreparedCase of `c`.
PreparedCase prepare_case(const Case& c);

/// What an import did.
struct ImportReport {
  std::uint64_t added_count = 0, unchanged_count = 0, replaced_count = 0;
  std::uint64_t runs_added = 0, runs_unchanged = 0;
  /// Of runs_added, those that took the place of a different recording of
  /// the same case and strategy (another result, failmap version or time).
  std::uint64_t runs_replaced = 0;
  /// Recorded runs of replaced cases, deleted with the version they observed
  /// (case_history keeps the records, not their runs).
  std::uint64_t runs_dropped = 0;
  std::uint64_t disagreements = 0;  ///< recorded with --force
  /// A case left alone by OnConflict::Skip: its id, the input that gave it
  /// (FILE or FILE:LINE) and the members of its record that differ from the
  /// archive's (e.g. "title, fixtures").
  struct Skipped {
    std::string id, source, differing;
  };
  std::vector<Skipped> skipped;        ///< every skipped case, input order (kept also without keep_ids)
  std::uint64_t runs_skipped = 0;      ///< runs of skipped cases, not recorded
  std::vector<std::string> added;      ///< ids, input order (when keep_ids)
  std::vector<std::string> unchanged;  ///< identical content already present
  std::vector<std::string> replaced;   ///< previous version kept in case_history
  /// An added case whose checks equal those of cases already in the archive
  /// (ImportOptions::find_same_content): its id and theirs, in id order.
  struct SameContent {
    std::string id;
    std::vector<std::string> same_content_as;
  };
  std::vector<SameContent> same_content;  ///< in the order the cases were added
};

/// One import transaction. begin(), then add cases, runs and errors in any number,
/// then finish(): commits when no problem was recorded, else rolls back.
class ImportSession {
 public:
  ImportSession(Archive& archive, ImportOptions options);
  /// BEGIN IMMEDIATE.
  Status begin();
  /// Adds one case read from `source` (file and line): inserted when new,
  /// skipped when identical, replaced (previous version to case_history)
  /// with OnConflict::Replace, otherwise an error. A new or replaced case
  /// gets a fresh repair salt, or `seal` (from a bundle's case record) when
  /// given; an identical case keeps the archive's.
  void add_case(const Case& c, const std::string& source, const RepairSeal* seal = nullptr);
  /// add_case with what a new case needs computed beforehand (off the
  /// calling thread, see PreparedCase).
  void add_case(const Case& c, const std::string& source, const RepairSeal* seal, const PreparedCase& prepared);
  /// Adds a recorded run; its case must be in the archive (or added before),
  /// else an error — unless note_unreadable_record() was called: the run's
  /// case may be that record, and one fault is reported once (the import
  /// fails on the unreadable record either way).
  void add_run(const RunRecord& r, const std::string& source);
  /// Notes a record already reported as unusable (unreadable, or a case
  /// refused before its id was known to be valid).
  void note_unreadable_record() { m_unreadable_records = true; }
  /// True when add_case skipped case `id` (OnConflict::Skip).
  bool skipped(const std::string& id) const { return m_skipped.count(id) != 0; }
  /// Cases added or replaced so far (not unchanged or refused ones).
  std::uint64_t cases_written() const { return m_report.added_count + m_report.replaced_count; }
  /// Records page disagreements of a case imported with --force.
  void add_disagreements(const std::vector<Disagreement>& ds);
  /// Records a problem found while reading an input.
  void add_error(std::string message) { m_errors.push_back(std::move(message)); }
  /// Commit (no problems) or roll back. The Error says how many problems
  /// there were; errors() lists them.
  Result<ImportReport> finish();
  const std::vector<std::string>& errors() const { return m_errors; }
  std::vector<std::string>& errors() { return m_errors; }
  const ImportOptions& options() const { return m_options; }
  /// The archive written to (reads see this session's writes).
  Archive& archive() { return m_archive; }

 private:
  bool storage(const Status& s, const std::string& source);
  void add_case_with(const Case& c, const std::string& source, const RepairSeal* seal, const PreparedCase* prepared);
  Archive& m_archive;
  ImportOptions m_options;
  RollbackJournal m_journal;  // before m_tx: the transaction ends first
  Transaction m_tx;
  std::string m_now;
  std::vector<std::string> m_errors;
  bool m_unreadable_records = false;
  bool m_started_empty = false;  ///< the archive held no case when the transaction began

  /// Where an id was first given: "FILE:LINE" is kept as an index into
  /// m_source_files plus the line (0: the source is the file name alone), so
  /// a bundle's million lines share one copy of its file name.
  struct SeenAt {
    std::uint32_t file = 0;
    std::uint64_t line = 0;
  };
  SeenAt seen_at(const std::string& source);
  std::string source_text(const SeenAt& at) const;
  std::unordered_map<std::string, SeenAt> m_seen;  // id -> first source
  std::unordered_set<std::string> m_skipped;       // ids OnConflict::Skip left alone
  Status find_same_content();
  // With find_same_content: each added case and the SHA-256 of its checks.
  std::vector<std::pair<std::string, Sha256Bytes>> m_added_checks;
  std::unordered_set<std::string> m_added_ids;
  std::vector<std::string> m_source_files;
  ImportReport m_report;
};

/// Reads every path (dispatching by kind, see above) into `session`.
void import_paths(ImportSession& session, const std::vector<std::string>& paths);

/// How many cases import_paths will read from `paths`, cheaply (for a
/// progress bar's total): one per case file or page, a bundle's manifest
/// counts of cases and pages. Unreadable paths count 0.
std::uint64_t count_import_cases(const std::vector<std::string>& paths);

/// True when two cases have identical content (every stored field).
bool same_case_content(const Case& a, const Case& b);

/// True when `c` is what reading back the page failmap writes for `stored`
/// (render_page at c's tier) gives: the same content, c's tier being the
/// page's (its header names the tier it was written at) which may differ from stored's, and as
/// published values stored's own plus, where stored has none, the digests
/// that page computes (each shown run's observation digest, the tier's case
/// digest; schema/DIGESTS.md). Such a page, exported from an archive and
/// imported into it (or into another holding the same case), adds nothing
/// and is counted unchanged, not refused as different content.
bool same_content_as_page_of(const Case& stored, const Case& c);

}  // namespace failmap
