// The archive's record of gradings (schema/010_gradings.sql): the cache that
// makes `failmap grade` of a source already graded against an unchanged case,
// with the same settings, a lookup instead of a run (schema/GRADING.md
// "Recording"). Keyed by content — the case digest and the source's SHA-256 —
// so a changed case or source is graded anew, and a model renamed is not.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "store/archive.h"
#include "store/sqlite.h"

namespace failmap {

/// Looks up and records gradings in one archive. Call from one thread.
class GradingRecord {
 public:
  /// Prepares the statements. Errors: SQLite's (an archive without the
  /// table is migrated when opened read-write).
  static Result<GradingRecord> open(Archive& archive);

  /// The recorded judged members (compact JSON) of `source_sha256` (hex)
  /// graded against the case whose digest is `case_digest` (hex) with
  /// `settings`, or nullopt. Errors: SQLite's.
  Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                          const std::string& settings);

  /// Records one grading (replacing one with the same key). Writes are
  /// committed in batches of 256 (and by finish()), so a long grading does
  /// not hold the archive's write lock for its whole run.
  Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                const std::string& judged);

  /// Commits what record() has not committed yet.
  Status finish();

 private:
  GradingRecord(Archive& archive, Statement find, Statement insert)
      : m_archive(&archive), m_find(std::move(find)), m_insert(std::move(insert)) {}
  Archive* m_archive;
  Statement m_find, m_insert;
  std::size_t m_pending = 0;
  bool m_open = false;
};

}  // namespace failmap
