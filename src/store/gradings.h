// The archive's record of gradings (schema/010_gradings.sql): the cache that
// makes `failmap grade` of a source already graded against an unchanged case,
// with the same settings, a lookup instead of a run (schema/GRADING.md
// "Recording"). Keyed by content — the case digest and the source's SHA-256 —
// so a changed case or source is graded anew, and a model renamed is not.
// Several graders may record into one archive at once: each holds the write
// lock only while it writes a batch (a few milliseconds), never while it
// grades.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/result.h"
#include "store/archive.h"
#include "store/sqlite.h"

namespace failmap {

/// One row of the record (table gradings), digests as 64 hex digits.
struct RecordedGrading {
  std::string case_digest;    ///< the case digest of the case as graded
  std::string source_sha256;  ///< SHA-256 of the candidate's source
  std::string settings;       ///< what else the result depends on (compact JSON)
  std::string result;         ///< the judged members (compact JSON), as stored
  std::string graded_at;      ///< UTC, ISO 8601
  /// The id of the archive's case whose stored case digest is `case_digest`,
  /// or "" when no case has it now (the case changed or was removed since).
  std::string case_id;
};

/// Looks up and records gradings in one archive. Call from one thread.
class GradingRecord {
 public:
  /// Prepares the statements and ends the connection's open read (a
  /// statement of Database::cached left mid-step by the caller's lookups),
  /// so that the grading that follows never holds a snapshot of the archive
  /// other writers would wait for. Errors: SQLite's (an archive without the
  /// table is migrated when opened read-write).
  static Result<GradingRecord> open(Archive& archive);

  /// The recorded judged members (compact JSON) of `source_sha256` (hex)
  /// graded against the case whose digest is `case_digest` (hex) with
  /// `settings`, or nullopt; a record() not yet written counts. Errors:
  /// SQLite's, Kind::Busy as Statement::step.
  Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                          const std::string& settings);

  /// Records one grading (replacing one with the same key). Rows are kept
  /// in memory and written by flush() in one short write transaction
  /// (Database::begin_write) every 256 rows or when 2 s have passed since
  /// the last write, and by finish(): the write lock is never held while a
  /// candidate runs. Errors: a digest that is not 64 hex, flush()'s.
  Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                const std::string& judged);

  /// Writes every row record() keeps, in one transaction. Errors: Kind::Busy
  /// when the write lock could not be had in busy_timeout_ms() (the rows
  /// stay kept; nothing is half written), SQLite's.
  Status flush();

  /// flush(), for the end of a grading.
  Status finish() { return flush(); }

 private:
  GradingRecord(Archive& archive, Statement find) : m_archive(&archive), m_find(std::move(find)) {}
  Archive* m_archive;
  Statement m_find;
  using Key = std::tuple<std::string, std::string, std::string>;  // case digest bytes, source bytes, settings
  std::map<Key, std::string> m_pending;                           // → judged
  std::int64_t m_last_flush_ms = 0;
};

/// Which records forget_gradings drops.
struct ForgetFilter {
  /// Every record whose case digest is the current case digest of one of
  /// these case ids (a case the archive lacks is an Error naming it).
  std::vector<std::string> case_ids;
  /// Every record whose case digest is no case's current digest (the case
  /// changed or was removed since it was graded).
  bool stale = false;
  /// Every record.
  bool all = false;
};

/// Deletes the records `filter` names in one write transaction and returns
/// how many were deleted. Errors: an unknown case id (nothing deleted),
/// Kind::Busy, SQLite's.
Result<std::uint64_t> forget_gradings(Archive& archive, const ForgetFilter& filter);

/// Calls `fn` for every record, ordered by case digest, source and settings,
/// with the case it belongs to now (RecordedGrading::case_id). Stops at
/// fn's first Error and returns it. Errors: a digest column that is not 32
/// bytes (tampering), SQLite's.
Status for_each_grading(Archive& archive, const std::function<Status(const RecordedGrading&)>& fn);

}  // namespace failmap
