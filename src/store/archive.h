// The SQLite archive: schema migrations (schema/NNN_*.sql, tracked in
// PRAGMA user_version) and every query failmap makes. Case content is stored
// in columns (schema/001_initial.sql) and JSON values as their JSON text.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "io/bundle.h"
#include "store/sqlite.h"

namespace failmap {

/// A recorded run as stored (the `runs` table); the same shape bundles
/// exchange (src/io/bundle.h).
using StoredRun = RunRecord;

/// One row of `failmap list`.
struct CaseSummary {
  std::string id;
  std::string mechanism;
  int variant = 1;
  std::string title;
  Tier tier = Tier::Open;
  std::string params;  ///< JSON text of the binding
  int runs = 0;        ///< recorded runs
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
  /// Calls `fn` for every case in id order, streaming (constant memory).
  /// Stops early and returns fn's Error if it returns one.
  Status for_each_case(const std::function<Status(const Case&)>& fn);

  /// Inserts a case (and its mechanism row if absent) with its fixtures and
  /// published digests. Call inside a Transaction. Fails if the id exists.
  Status insert_case(const Case& c);
  /// Deletes a case and, by cascade, its fixtures and runs.
  Status delete_case(const std::string& id);

  /// Records (replaces) the latest run of a case and strategy.
  Status record_run(const StoredRun& run);
  /// The recorded run, or nullopt.
  Result<std::optional<StoredRun>> load_run(const std::string& case_id, StrategyKind strategy);
  /// All recorded runs of a case, in strategy order.
  Result<std::vector<StoredRun>> load_runs(const std::string& case_id);

  /// Number of cases.
  Result<std::int64_t> case_count();

 private:
  explicit Archive(Database db) : m_db(std::move(db)) {}
  Status migrate(Mode mode);
  Database m_db;
};

/// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (for recorded_at; never digested).
std::string utc_now_iso8601();

}  // namespace failmap
