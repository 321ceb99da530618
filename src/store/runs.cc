// Recorded runs (the runs and recordings tables, schema/005): recording
// them one at a time (record_run) or in multi-row INSERTs (record_runs,
// record_run_rows), in compact form (the actual values) when the document
// rebuilds from them byte for byte, and reading them back with their
// observation documents rebuilt. The case digest over the runs is stored by
// seals.cc; a bundle's run records are src/io/bundle.h's.
#include "store/archive.h"

#include <algorithm>
#include <optional>

#include "encoding/sha256.h"
#include "io/observation.h"
#include "store/archive_internal.h"
#include "store/archive_digests.h"

namespace failmap {

using archive_detail::digest_view;
using archive_detail::k_rows_per_insert;
using archive_detail::multi_row_insert;

namespace {

constexpr const char* k_insert_run =
    "INSERT OR REPLACE INTO runs(case_id, strategy, actuals, exit_status, digest, recording, observation) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

}  // namespace

Result<std::int64_t> Archive::recording_id(std::string_view failmap_version, std::string_view recorded_at) {
  FAILMAP_TRY_ASSIGN(auto add,
                     m_db.cached("INSERT OR IGNORE INTO recordings(failmap_version, recorded_at) VALUES (?1, ?2)"));
  add->bind(1, failmap_version);
  add->bind(2, recorded_at);
  FAILMAP_TRY(add->run());
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT id FROM recordings WHERE failmap_version = ?1 AND recorded_at = ?2"));
  st->bind(1, failmap_version);
  st->bind(2, recorded_at);
  FAILMAP_TRY_ASSIGN(auto r, st->step());
  if (!r) return input_error(m_db.path() + ": recording vanished while being recorded");
  std::int64_t id = st->column_int(0);
  st->reset();
  return id;
}

Status Archive::record_run(const RunRecord& run) {
  FAILMAP_TRY_ASSIGN(auto fixtures, load_fixtures(run.case_id));
  return record_run(run, fixtures);
}

Status Archive::record_run(const RunRecord& run, const Case& fixtures) {
  Sha256Bytes digest{};
  if (!parse_sha256_hex(run.digest, &digest))
    return input_error("case " + run.case_id + ", " + std::string(strategy_name(run.strategy)) + " run: digest '" +
                       run.digest + "' is not a SHA-256 hex digest (64 lower-case hex characters)");
  FAILMAP_TRY_ASSIGN(auto recording, recording_id(run.failmap_version, run.recorded_at));
  std::optional<RunOutcome> compact = compact_observation(fixtures, run.strategy, run.observation);
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached(k_insert_run));
  st->bind(1, run.case_id);
  st->bind(2, static_cast<std::int64_t>(run.strategy));
  std::string actuals;
  if (compact) {
    append_actuals_text(actuals, *compact);
    st->bind(3, actuals);
    st->bind_null(7);
  } else {
    st->bind_null(3);
    st->bind(7, run.observation);
  }
  st->bind(4, std::int64_t{run.exit_status});
  st->bind_blob(5, digest_view(digest));
  st->bind(6, recording);
  return st->run();
}

void Archive::stored_actuals(const Case& c, const RunOutcome& outcome, std::string_view document,
                             std::string* actuals) {
  actuals->clear();
  if (rebuilds_without_check(outcome) || compact_observation(c, outcome.strategy, document).has_value())
    append_actuals_text(*actuals, outcome);
}

Status Archive::record_runs(const Case& c, const NewRun* runs, std::size_t count, std::int64_t recording) {
  if (count > 3) return input_error("case " + c.id + ": more than 3 runs to record at once");
  std::string actuals[3];
  RunRow rows[3];
  for (std::size_t i = 0; i < count; ++i) {
    stored_actuals(c, *runs[i].outcome, runs[i].document, &actuals[i]);
    rows[i] = RunRow{c.id,       runs[i].outcome->strategy, runs[i].outcome->exit_status(),
                     actuals[i], runs[i].document,          runs[i].digest};
  }
  return record_run_rows(rows, count, recording);
}

Status Archive::record_run_rows(const RunRow* rows, std::size_t count, std::int64_t recording) {
  std::size_t last_size = 0;
  Statement* st = nullptr;
  for (std::size_t begin = 0; begin < count; begin += k_rows_per_insert) {
    std::size_t n = std::min(k_rows_per_insert, count - begin);
    if (n != last_size) {
      FAILMAP_TRY_ASSIGN(
          st,
          m_db.cached(multi_row_insert(
              "INSERT OR REPLACE INTO runs(recording, case_id, strategy, exit_status, digest, actuals, observation)", n,
              "?1, ", 6, 2)));
      last_size = n;
    }
    st->bind(1, recording);
    for (std::size_t i = 0; i < n; ++i) {
      const RunRow& r = rows[begin + i];
      int p = static_cast<int>(2 + 6 * i);
      st->bind_static(p, r.case_id);
      st->bind(p + 1, static_cast<std::int64_t>(r.strategy));
      st->bind(p + 2, std::int64_t{r.exit_status});
      st->bind_blob_static(p + 3, digest_view(*r.digest));
      if (!r.actuals.empty()) {
        st->bind_static(p + 4, r.actuals);
        st->bind_null(p + 5);
      } else {
        st->bind_null(p + 4);
        st->bind_static(p + 5, r.document);
      }
    }
    FAILMAP_TRY(st->run());
  }
  return ok_status();
}

namespace {

constexpr const char* k_select_runs =
    "SELECT r.strategy, r.actuals, r.exit_status, r.digest, g.failmap_version, g.recorded_at, r.observation "
    "FROM runs r JOIN recordings g ON g.id = r.recording WHERE r.case_id = ?1 ORDER BY r.strategy";

}  // namespace

Status Archive::decode_run_row(Statement& st, int first, const std::string& case_id, StoredRunRow& row) {
  RunRecord& run = row.run;
  run.case_id = case_id;
  std::int64_t k = st.column_int(first);
  if (k < 0 || k > 2)
    return input_error(m_db.path() + ": case " + case_id + ", run: unknown strategy " + std::to_string(k));
  run.strategy = static_cast<StrategyKind>(k);
  if (st.column_is_null(first + 1)) row.actuals.reset();
  else row.actuals = st.column_text(first + 1);
  run.exit_status = static_cast<int>(st.column_int(first + 2));
  std::string digest = st.column_blob(first + 3);
  run.digest = to_hex(reinterpret_cast<const unsigned char*>(digest.data()), digest.size());
  run.failmap_version = st.column_text(first + 4);
  run.recorded_at = st.column_text(first + 5);
  run.observation = st.column_text(first + 6);
  return ok_status();
}

namespace {
// How every unreadable_run_advice begins.
constexpr std::string_view k_unreadable_run = " (the recorded run was changed after it was recorded";
}  // namespace

Error with_other_unreadable_runs(Archive& archive, Error e) {
  if (e.message.find(k_unreadable_run) == std::string::npos) return e;
  if (auto n = archive.case_count(); !n || *n < 2) return e;
  if (!e.message.empty() && e.message.back() != '.') e.message += '.';
  e.message +=
      " Other cases may hold such runs too (`failmap verify` names every one): `failmap run --all` records every "
      "case's runs again, and `failmap digest regenerate --discard-unreadable-runs`, with no case ids, discards all "
      "such runs at once where `run` refuses a case as changed.";
  return e;
}

std::string unreadable_run_advice(const std::string& id, RunRefusal refusal) {
  const std::string run = "`failmap run " + id + "` records the case's runs again";
  const std::string discard = "`failmap digest regenerate --discard-unreadable-runs " + id + "`";
  switch (refusal) {
    case RunRefusal::No:
      return std::string(k_unreadable_run) + ": " + run + ")";
    case RunRefusal::Yes:
      return std::string(k_unreadable_run) + ", and the case since it was digested, so `failmap run " + id +
             "` refuses it: " + discard + " discards the run and accepts the change; `run` records the run again then)";
    case RunRefusal::Unknown:
      break;
  }
  return std::string(k_unreadable_run) + ": " + run + "; if it refuses the case as changed, " + discard +
         " discards the run first)";
}

Status rebuild_observation(const Case& fixtures, StoredRunRow& row, const std::string& where, RunRefusal refusal) {
  if (!row.actuals) return ok_status();
  auto outcome = outcome_from_actuals_text(fixtures, row.run.strategy, *row.actuals, where);
  if (!outcome)  // not what failmap wrote: the command that works is the one that records runs
    return input_error(outcome.error().message + unreadable_run_advice(fixtures.id, refusal));
  row.run.observation = observation_document(fixtures, *outcome);
  row.actuals.reset();
  return ok_status();
}

Status rebuild_observations(const Case& fixtures, std::vector<StoredRunRow>& rows, const std::string& archive_path,
                            RunRefusal refusal) {
  for (StoredRunRow& row : rows) {
    if (!row.actuals) continue;
    std::string where =
        archive_path + ": case " + fixtures.id + ", " + std::string(strategy_name(row.run.strategy)) + " run actuals";
    FAILMAP_TRY(rebuild_observation(fixtures, row, where, refusal));
  }
  return ok_status();
}

Result<std::vector<RunRecord>> Archive::load_runs(const std::string& case_id, std::vector<UnreadableRun>* unreadable) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached(k_select_runs));
  st->bind(1, case_id);
  std::vector<StoredRunRow> rows;
  if (Status each = st->for_each_row([&]() -> Status {
        FAILMAP_TRY(decode_run_row(*st, 0, case_id, rows.emplace_back()));
        return ok_status();
      });
      !each)
    return each.error();
  std::optional<Case> fixtures;
  std::vector<RunRecord> out;
  out.reserve(rows.size());
  for (StoredRunRow& row : rows) {
    if (row.actuals) {
      if (!fixtures) {
        FAILMAP_TRY_ASSIGN(fixtures, load_fixtures(case_id));
      }
      std::string where =
          m_db.path() + ": case " + case_id + ", " + std::string(strategy_name(row.run.strategy)) + " run actuals";
      auto outcome = outcome_from_actuals_text(*fixtures, row.run.strategy, *row.actuals, where);
      if (!outcome && unreadable) {
        unreadable->push_back(UnreadableRun{row.run.strategy, outcome.error().message});
        continue;
      }
      if (!outcome) {
        // The command that works depends on whether `run` accepts the case.
        auto refusal = run_refusal(*this, case_id);
        return input_error(outcome.error().message +
                           unreadable_run_advice(case_id, refusal ? *refusal : RunRefusal::Unknown));
      }
      row.run.observation = observation_document(*fixtures, *outcome);
    }
    out.push_back(std::move(row.run));
  }
  return out;
}

Status Archive::delete_run(const std::string& case_id, StrategyKind strategy) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("DELETE FROM runs WHERE case_id = ?1 AND strategy = ?2"));
  st->bind(1, case_id);
  st->bind(2, static_cast<std::int64_t>(strategy));
  return st->run();
}

Result<std::optional<RunRecord>> Archive::load_run(const std::string& case_id, StrategyKind strategy) {
  FAILMAP_TRY_ASSIGN(auto runs, load_runs(case_id));
  for (RunRecord& r : runs)
    if (r.strategy == strategy) return std::optional<RunRecord>(std::move(r));
  return std::optional<RunRecord>();
}

}  // namespace failmap
