// The SQLite archive: the Archive class, through which every query failmap
// makes goes. Case content is stored in columns (schema/001_initial.sql) and
// JSON values as their JSON text. Its members are implemented by concern:
// opening and whole-archive questions (archive.cc), migrations
// (migrations.cc, schema versions in migrations.h), case rows (case_rows.cc,
// their texts in case_rows.h), recorded runs (runs.cc, runs.h), repair seals
// and case digests (seals.cc, seals.h), streaming scans (scan.cc), and
// history and disagreements (history.cc, history.h). This header includes
// those, so callers include it alone.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "store/case_rows.h"
#include "store/history.h"
#include "store/migrations.h"
#include "store/runs.h"
#include "store/seals.h"
#include "store/sqlite.h"

namespace failmap {

struct Disagreement;  // io/page.h

/// A case with what `export` writes beside it: its recorded runs in
/// strategy order and its repair seal (Archive::Scan).
struct ArchivedCase {
  Case c;  ///< published runs included; the fields of `texts` once decoded
  std::vector<StoredRunRow> runs;
  RepairSeal seal;
  /// The case digest the archive stores (table case_digests), 64 hex
  /// digits; nullopt when it holds none. Read with CasesRunsSeals only.
  std::optional<std::string> stored_case_digest;
  CaseRowTexts texts;   ///< as read, while `decoded` is false
  bool decoded = true;  ///< false: tier, params, evaluation_group, fixtures still in `texts`
};

/// One row of `failmap list`.
struct CaseSummary {
  std::string id;
  std::string mechanism;
  int variant = 1;
  std::string title;
  Tier tier = Tier::Open;
  std::string params;            ///< JSON text of the binding
  int runs = 0;                  ///< recorded runs
  std::string evaluation_group;  ///< JSON text of the sorted tags, as stored
};

/// An open archive. Opening applies pending migrations (read-write) or checks
/// that none are pending (read-only); an archive whose user_version is newer
/// than this build knows is refused with a message naming both versions.
class Archive {
 public:
  using Mode = Database::Mode;
  /// Schema version this build writes: the highest NNN in schema/.
  static int current_schema_version();
  static Result<Archive> open(const std::string& path, Mode mode);

  Database& db() { return m_db; }
  /// The archive's PRAGMA user_version.
  Result<int> schema_version();

  /// The case, or std::nullopt when no case has this id. Errors on storage
  /// problems or on stored JSON text that no longer parses (tampering).
  Result<std::optional<Case>> load_case(const std::string& id);
  /// All case ids in ascending byte order.
  Result<std::vector<std::string>> case_ids();
  /// Summaries of all cases, ordered by id.
  Result<std::vector<CaseSummary>> list_cases();
  /// How much of a case read_case_rows reads.
  enum class CaseFields {
    Record,  ///< everything but the published digests (what the case digest covers) and the stored field digests (what
             ///< a recorded run --all checks them against)
    Runs,    ///< id, mechanism, fixtures (what running the strategies needs) and the binding (checked, as every command
             ///< does)
    Split,   ///< id, mechanism, evaluation_group and fixtures (what split's units and content digests need)
  };
  /// Up to `limit` case rows whose id sorts after `after_id` (byte order),
  /// in id order, for `run --all`: keyset pagination for streaming all cases
  /// in batches ("" starts). Published digests are never read. Row i goes to
  /// case_at(i) and (*texts)[i] as copy_case_columns leaves it (with
  /// CaseFields::Runs only the id, the mechanism, the fixture texts and params),
  /// (CaseFields::Split adds evaluation_group), reusing their buffers
  /// (`texts` only grows; case_at(i) is called once per row, in row order,
  /// and the Case it returns is filled before case_at(i + 1) is called, so
  /// it may grow the container it points into); returns the number of rows.
  /// Only SQLite stepping and copying: decode_case_row does the rest.
  Result<std::size_t> read_case_rows(const std::string& after_id, std::size_t limit, CaseFields fields,
                                     const std::function<Case&(std::size_t)>& case_at,
                                     std::vector<CaseRowTexts>* texts);
  /// Per-thread memory of decode_case_row: repeated texts decoded once.
  struct DecodeCache;
  /// Completes a case read by read_case_rows: parses `texts` (tier, params,
  /// evaluation_group and fixtures; params, checked by the binding rule,
  /// and fixtures with CaseFields::Runs;
  /// evaluation_group and fixtures with CaseFields::Split) into `*c`. Errors as load_case, naming `archive_path`.
  /// Touches no archive: callable on any thread, with one `cache` per thread.
  static Status decode_case_row(CaseFields fields, const CaseRowTexts& texts, const std::string& archive_path, Case* c,
                                DecodeCache* cache);
  /// What a Scan reads besides the case rows and their published runs.
  enum class ScanFields {
    Cases,           ///< no recorded runs, no repair seal
    CasesRuns,       ///< also the recorded runs (no repair seal, no stored case digest)
    CasesRunsSeals,  ///< also the recorded runs, the repair seal and the stored case digest
  };
  /// Streams every case in id order in batches: one ordered scan per table
  /// (cases, published_runs, runs for CasesRuns, and for CasesRunsSeals
  /// runs, repair_salts and case_digests),
  /// merged by case id, instead of queries per case.
  class Scan;
  /// Starts a Scan at the first case.
  Result<Scan> scan(ScanFields fields);
  /// Calls `fn` for every case in id order, streaming (constant memory).
  /// Stops early and returns fn's Error if it returns one.
  Status for_each_case(const std::function<Status(const Case&)>& fn);

  /// Inserts a case (and its mechanism row if absent) with its fixtures and
  /// published digests. Call inside a Transaction. Fails if the id exists.
  /// `digests`, when given, are stored as its case and field digests (they
  /// must be compute_case_digests(c, {}): a new row has no runs), else those
  /// columns stay NULL. `seal`, when given, is its repair seal, else a fresh
  /// salt is made.
  /// `texts`, when given, must be case_insert_texts(c, digests) (import
  /// computes them off the calling thread), else they are computed here.
  Status insert_case(const Case& c, const CaseDigests* digests = nullptr, const RepairSeal* seal = nullptr,
                     const CaseInsertTexts* texts = nullptr);
  /// The case's repair seal. Every case has one: insert_case makes a fresh
  /// salt (OpenSSL RAND_bytes), migration 4 fills older cases. An Error when
  /// the row is missing or the salt is not 32 bytes (tampering).
  Result<RepairSeal> repair_seal(const std::string& case_id);
  /// Replaces the case's repair seal (import of a bundle that carries one),
  /// with its seal digest.
  Status set_repair_seal(const std::string& case_id, const RepairSeal& seal);
  /// The repair_salts rows of the cases in `ids` (every row when empty)
  /// whose seal digest differs from the one their salt or commitment gives,
  /// in case id order. An Error for a row that does not decode (a salt or
  /// digest that is not 32 bytes) or SQLite's own.
  Result<std::vector<SealMismatch>> seal_mismatches(const std::vector<std::string>& ids);
  /// Stores the seal digest of each of `rows` (their `recomputed` hex) as
  /// digest regenerate accepts a changed salt. Call inside a Transaction.
  Status store_seal_digests(const std::vector<SealMismatch>& rows);
  /// Deletes a case and, by cascade, its fixtures and runs. Returns the
  /// number of recorded runs deleted with it.
  Result<std::uint64_t> delete_case(const std::string& id);

  /// Sets failmap's case digest of case `id` (the case_digests table,
  /// schema/DIGESTS.md) and leaves field_digests alone: they do not depend
  /// on runs. The fast path of run --all. Call inside a Transaction.
  Status set_case_digest(const std::string& id, const Sha256Bytes& case_digest);
  /// As above from 64 lower-case hex; an Error for anything else.
  Status set_case_digest(const std::string& id, std::string_view case_digest_hex);
  /// failmap's stored case digest of `id` as 64 hex, or nullopt when none
  /// was computed yet. An Error when the stored value is not 32 bytes.
  Result<std::optional<std::string>> case_digest(const std::string& id);

  /// The id of the (failmap version, recorded_at) pair in the recordings
  /// table, added when new. Call inside the Transaction that records runs.
  Result<std::int64_t> recording_id(std::string_view failmap_version, std::string_view recorded_at);
  /// Sets the field digests of case `id` (cases.field_digests and those of
  /// its row of case_texts, schema/007) and its case digest (64 hex,
  /// set_case_digest) from `d`, with cached statements. Call inside a
  /// Transaction.
  Status set_case_digests(const std::string& id, const CaseDigests& d);
  /// Records (replaces) the latest run of a case and strategy. The document
  /// is stored as the run's actual values when it rebuilds from them byte
  /// for byte (compact_observation), else verbatim. An Error when `digest`
  /// is not 64 lower-case hex.
  Status record_run(const RunRecord& run);
  /// A run of a case about to be recorded: its outcome, the document
  /// observation_document() made of it, and the document's raw SHA-256.
  struct NewRun {
    const RunOutcome* outcome = nullptr;
    std::string_view document;
    const Sha256Bytes* digest = nullptr;
  };
  /// Records (replaces) the latest runs of `c` (at most 3, one per
  /// strategy) with one multi-row INSERT, with `recording` from
  /// recording_id(). The stored form is stored_actuals()'s.
  Status record_runs(const Case& c, const NewRun* runs, std::size_t count, std::int64_t recording);
  /// What the runs table keeps of a run (schema/005_compact_runs.sql): its
  /// actual values' text (append_actuals_text), written to `*actuals`, when
  /// they rebuild `document` byte for byte (certain by rebuilds_without_check,
  /// else checked by compact_observation); otherwise `*actuals` is left empty
  /// and the document is to be kept verbatim. Touches no archive: callable
  /// on any thread.
  static void stored_actuals(const Case& c, const RunOutcome& outcome, std::string_view document, std::string* actuals);
  /// A run ready for the runs table, for record_run_rows.
  struct RunRow {
    std::string_view case_id;
    StrategyKind strategy = StrategyKind::Broken;
    int exit_status = 0;
    std::string_view actuals;             ///< stored_actuals() text; empty: `document` is kept verbatim
    std::string_view document;            ///< the observation document (read only when `actuals` is empty)
    const Sha256Bytes* digest = nullptr;  ///< SHA-256 of the document
  };
  /// Records (replaces) `count` runs with `recording` from recording_id(),
  /// up to 96 rows per INSERT; the bytes are bound without copies and must
  /// stay unchanged during the call. Call inside a Transaction.
  Status record_run_rows(const RunRow* rows, std::size_t count, std::int64_t recording);
  /// A case digest ready for the case_digests table, for set_case_digest_rows.
  struct CaseDigestRow {
    std::string_view case_id;
    const Sha256Bytes* digest = nullptr;
  };
  /// set_case_digest for `count` cases, up to 96 rows per INSERT (bytes
  /// bound without copies, as record_run_rows). Call inside a Transaction.
  Status set_case_digest_rows(const CaseDigestRow* rows, std::size_t count);
  /// The recorded run, or nullopt. Its observation document is rebuilt from
  /// the case's stored fixtures and the run's actual values.
  Result<std::optional<RunRecord>> load_run(const std::string& case_id, StrategyKind strategy);
  /// All recorded runs of a case, in strategy order. A run whose stored
  /// actual values do not decode is an Error naming the command that works
  /// (unreadable_run_advice, run_refusal), or, with `unreadable`, left out
  /// and appended there.
  Result<std::vector<RunRecord>> load_runs(const std::string& case_id,
                                           std::vector<UnreadableRun>* unreadable = nullptr);
  /// Deletes the recorded run of `strategy` of case `case_id` (none: nothing
  /// to do); the case's digests are the caller's to refresh. Call inside a
  /// Transaction.
  Status delete_run(const std::string& case_id, StrategyKind strategy);
  /// The case's fixtures as stored (a Case holding only id and fixtures):
  /// what stored runs are rebuilt against. Errors as load_case.
  Result<Case> load_fixtures(const std::string& case_id);

  /// Number of cases.
  Result<std::int64_t> case_count();
  /// Number of cases of each mechanism id the cases table names (mechanisms
  /// without cases absent), ordered by id.
  Result<std::map<std::string, std::int64_t>> case_counts_by_mechanism();
  /// Number of recorded runs of each strategy, indexed by StrategyKind.
  Result<std::array<std::int64_t, 3>> run_counts();
  /// True when a case with this id exists (one indexed lookup).
  Result<bool> has_case(const std::string& id);
  /// True when the archive holds at least one case (one index step, unlike
  /// case_count's scan).
  Result<bool> has_cases();
  /// The cases holding the same checks as each of `made` (pairs of a case id
  /// and the SHA-256 of its case_insert_texts(c).fixture_values: the
  /// [args, expected] pairs as json.dumps spells them, what
  /// case_content_digest covers): per digest of `made`, the ids of the
  /// archive's cases, `made`'s own ids left out, whose stored fixture_values
  /// text has that digest, in id order (a digest without any: an empty list).
  /// One scan of the cases table. Errors: the store's.
  Result<std::map<Sha256Bytes, std::vector<std::string>>> cases_with_same_checks(
      const std::vector<std::pair<std::string, Sha256Bytes>>& made);
  /// Rows of the tables keyed by case id (case_digests,
  /// import_disagreements, published_runs, repair_salts, runs) whose case is
  /// not in `cases`: what a case deleted outside failmap with foreign keys off
  /// leaves. Pairs (case id, table), sorted; UNION gives each pair once.
  Result<std::vector<std::pair<std::string, std::string>>> orphan_rows();

  /// Keeps `old` (the version about to be replaced) in the history table
  /// (schema/002_history.sql) as its member-tier case record, numbered one
  /// past the case's last kept version. `replaced_by` names the input.
  Status save_history(const Case& old, const std::string& replaced_by, const std::string& replaced_at);
  /// Kept versions of a case, oldest first (empty when never replaced).
  Result<std::vector<HistoryEntry>> history(const std::string& id);
  /// Records one disagreement between a published page and failmap's
  /// computation, for a page imported with --force.
  Status record_disagreement(const Disagreement& d);
  /// The disagreements recorded for a case, in recording order.
  Result<std::vector<Disagreement>> disagreements(const std::string& id);

 private:
  explicit Archive(Database db) : m_db(std::move(db)) {}
  Status migrate(Mode mode);
  /// Gives a fresh salt to every case without a repair_salts row.
  Status fill_missing_repair_salts();
  /// Migration 5: moves every runs_v4 row into the compact runs table (the
  /// document kept verbatim when it does not rebuild) and every
  /// cases.case_digest into case_digests, then drops the old ones. An Error
  /// (nothing migrated) on a digest that is not 64 lower-case hex.
  Status compact_v4_runs();
  /// Migration 7: fills case_texts (one row per distinct text) and cases_v7
  /// from the version-6 cases rows, then replaces cases by cases_v7. Text
  /// digests are computed; row digests come from the old field_digests
  /// object when it has them all, else stay NULL (computed by `digest regenerate`).
  Status split_case_texts();
  /// Migration 8: copies every repair_salts row into repair_salts_v8 with
  /// the commitment as 32 bytes, then replaces repair_salts by it. An Error
  /// (nothing migrated) on a commitment that is not 64 lower-case hex.
  Status commitments_to_bytes();
  /// Migration 9: sets the seal digest of every repair_salts row.
  Status fill_seal_digests();
  /// The case_texts row holding exactly c's title and prose (its digests
  /// `text_digests`, 256 bytes), inserted when there is none.
  Result<std::int64_t> text_id_for(const Case& c, std::string_view text_digests);
  /// record_run(run) against already loaded fixtures.
  Status record_run(const RunRecord& run, const Case& fixtures);
  /// Reads the fixtures of c.id into c.fixtures; `where` prefixes errors.
  Status read_fixtures(Case& c, const std::string& where);
  /// A Case from a row of the case columns plus its fixtures and published runs.
  Result<Case> case_from_row(Statement& row);
  /// Decodes a runs row from column `first` on (strategy, actuals,
  /// exit_status, digest, failmap_version, recorded_at, observation).
  Status decode_run_row(Statement& st, int first, const std::string& case_id, StoredRunRow& row);
  /// Decodes a repair_salts row from column `first` on (salt, commitment).
  Status decode_seal(Statement& st, int first, const std::string& case_id, RepairSeal& seal);
  /// Copies the case columns of `row` into `c`, those that need parsing into `texts`.
  static void copy_case_columns(Statement& row, Case& c, CaseRowTexts& texts);
  /// Parses `texts` into `c` (tier, params, evaluation_group, fixtures).
  static Status decode_case_texts(const CaseRowTexts& texts, Case& c, const std::string& where, DecodeCache* cache);
  /// Decodes the case columns of `row` into `c`, fixtures included (not published runs).
  Status decode_case_columns(Statement& row, Case& c, const std::string& where, DecodeCache* cache);
  /// Decodes the fixture_labels and fixture_values texts (schema/006) into c.fixtures.
  static Status decode_fixtures(std::string_view labels, std::string_view values, Case& c, const std::string& where,
                                DecodeCache* cache);
  /// What insert_case learnt of the archive in the current transaction, so
  /// that a bulk import does not ask SQLite again for every case: the
  /// mechanisms known to have a row, and the case_texts row last found or
  /// inserted (consecutive variants share one). Never used outside a
  /// transaction; a new transaction (Database::transaction_serial) starts
  /// it afresh, so a rolled-back row is never remembered.
  struct InsertMemo {
    std::uint64_t serial = 0;
    std::set<std::string, std::less<>> mechanisms;
    std::int64_t text_id = 0;          ///< 0: no case_texts row remembered
    std::string text_digests;          ///< its field_digests (256 bytes)
    std::array<std::string, 8> texts;  ///< title, then the prose fields in text_id_for's order
  };
  /// set_repair_seal with `verb` "INSERT" (a new case: no row to replace)
  /// or "INSERT OR REPLACE".
  Status write_repair_seal(std::string_view verb, const std::string& case_id, const RepairSeal& seal);
  /// The memo of the current transaction, nullptr outside one.
  InsertMemo* insert_memo();
  Database m_db;
  InsertMemo m_insert_memo;
  // Heap-held so that moving the Archive keeps Statement* stable.
  /// True while migrating an archive older than schema version 6, whose
  /// fixtures are still rows of the `fixtures` table (read by migration 5).
  bool m_fixture_rows = false;
  /// False while migrating to a version before 9, whose repair_salts has no
  /// seal_digest column (migration 4 writes salts).
  bool m_seal_digests = true;
};

/// The last evaluation_group and fixture_labels texts decoded, reused while
/// they repeat (every case of a mechanism has the same).
struct Archive::DecodeCache {
  std::string tags_text;
  std::vector<std::string> tags;
  std::string labels_text;  ///< the last fixture_labels column decoded
  std::vector<std::string> labels;
};

/// Archive::scan's stream of cases (see there). Rows of no case are
/// skipped. The Archive must outlive the Scan and not move.
class Archive::Scan {
 public:
  /// Replaces `batch` with the next cases, `limit` of them unless the
  /// archive ends first (an empty batch: no more). Errors as load_case,
  /// plus a case without a repair salt (CasesRunsSeals); on an Error,
  /// `batch` holds the cases read before the one that failed. Recorded
  /// runs keep their actuals (rebuild_observation is left to the caller),
  /// and the columns that need parsing their text (decode()).
  Status read(std::vector<ArchivedCase>& batch, std::size_t limit);
  /// Parses what read() left as text (tier, params, evaluation_group,
  /// fixtures) into a.c; no SQLite, so any thread may call it for the cases
  /// it owns while read() goes on. Errors as load_case.
  Status decode(ArchivedCase& a) const;

 private:
  friend class Archive;
  struct Cursor {
    Statement st;
    bool has_row = false;
    Status step();
    /// Steps past rows whose column 0 (a case id) sorts before `id`.
    Status skip_to(std::string_view id);
    bool at(std::string_view id) const { return has_row && st.column_view(0) == id; }
  };
  Status read_one(ArchivedCase& out);
  Archive* m_archive = nullptr;
  ScanFields m_fields = ScanFields::Cases;
  Cursor m_cases, m_published, m_runs, m_seals, m_digests;
};

/// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (for recorded_at; never digested).
std::string utc_now_iso8601();

}  // namespace failmap
