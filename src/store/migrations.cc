// Migrations: the schema version this build writes (the highest NNN of the
// embedded schema/NNN_*.sql), the archive's own (PRAGMA user_version), and
// migrate(), which applies the pending files in order, each in one
// transaction, with the conversions in C++ that some of them need (salts for
// version 4, compact runs for 5, case_texts for 7, commitment bytes for 8,
// seal digests for 9). The current schema's queries live with their tables
// (case_rows.cc, runs.cc, seals.cc, ...), not here.
#include "store/archive.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "encoding/embedded.h"
#include "store/archive_internal.h"

namespace failmap {

using archive_detail::digest_view;
using archive_detail::k_case_columns;

namespace {

// Migrations are the embedded files named NNN_*.sql, in name order.
std::vector<std::pair<int, std::string_view>> migrations() {
  std::vector<std::pair<int, std::string_view>> out;
  for (const auto& [name, body] : embedded_files()) {
    if (name.size() < 8 || name.substr(name.size() - 4) != ".sql") continue;
    int v = 0;
    for (std::size_t i = 0; i < 3; ++i) v = v * 10 + (name[i] - '0');
    out.emplace_back(v, body);
  }
  return out;
}

}  // namespace

int Archive::current_schema_version() {
  int v = 0;
  for (const auto& m : migrations()) v = std::max(v, m.first);
  return v;
}

Result<int> Archive::schema_version() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("PRAGMA user_version"));
  auto row = st.step();
  if (!row) {
    // SQLite reports a write-protected file or folder on the first statement of a read-write open.
    std::error_code ec;
    if (row.error().message.find("readonly database") != std::string::npos &&
        std::filesystem::exists(m_db.path() + "-journal", ec))
      return input_error(m_db.path() + ": an interrupted write left " + m_db.path() +
                         "-journal to roll back, and the archive file or folder is read-only here; a command "
                         "that writes (e.g. `failmap migrate`) rolls it back where it is writable");
    if (row.error().message.find("readonly database") != std::string::npos) return read_only_archive(m_db.path());
    return input_error(m_db.path() + ": not a failmap archive (" + row.error().message + ")");
  }
  return static_cast<int>(st.column_int(0));
}

Status Archive::migrate(Mode mode) {
  FAILMAP_TRY_ASSIGN(auto version, schema_version());
  int current = current_schema_version();
  if (version > current)
    return input_error(m_db.path() + ": archive schema version " + std::to_string(version) +
                       " was written by a newer failmap; this one reads up to version " + std::to_string(current) +
                       ". Upgrade failmap.");
  if (version == 0) {  // a non-empty SQLite file that is not ours must not be touched
    FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT count(*) FROM sqlite_schema"));
    FAILMAP_TRY(st.step());
    if (st.column_int(0) != 0)
      return input_error(m_db.path() + ": not a failmap archive (a SQLite database with foreign tables)");
  }
  if (mode != Mode::ReadOnly) {
    // WAL, unless another writer has the archive in rollback-journal mode
    // for its transaction (RollbackJournal): it returns to WAL when done, and
    // this connection's own transaction waits for it (busy timeout).
    FAILMAP_TRY(m_db.set_journal_mode("wal"));
    FAILMAP_TRY(m_db.exec("PRAGMA synchronous=NORMAL"));
  }
  FAILMAP_TRY(m_db.exec("PRAGMA foreign_keys=ON"));
  if (version == current) return ok_status();
  std::error_code size_error;
  if (mode == Mode::ReadOnly && version == 0 && std::filesystem::file_size(m_db.path(), size_error) == 0 && !size_error)
    return input_error(m_db.path() +
                       ": an empty file, not a failmap archive yet (a command that writes, e.g. "
                       "`failmap import cases/`, makes it one)");
  if (mode == Mode::ReadOnly)
    return input_error(m_db.path() + ": archive schema version " + std::to_string(version) + " needs migration to " +
                       std::to_string(current) + "; run `failmap migrate` once (it writes)");
  for (const auto& [v, sql] : migrations()) {
    if (v <= version) continue;
    // Migration 7 rebuilds cases; with foreign keys on, dropping the old
    // table would delete its runs, digests and salts. The pragma is a no-op
    // inside a transaction, so it is set around it (an error return leaves
    // it off on a connection that is then closed).
    bool rebuild = v == k_case_texts_schema_version;
    if (rebuild) FAILMAP_TRY(m_db.exec("PRAGMA foreign_keys=OFF"));
    Transaction tx(m_db);
    FAILMAP_TRY(tx.begin());
    // Another process may have migrated while this one waited for its
    // write lock (two commands opening a new archive at once): the version
    // read before the transaction is stale, so it is read again inside it.
    FAILMAP_TRY_ASSIGN(auto now, schema_version());
    if (now >= v) {
      FAILMAP_TRY(tx.commit());
      if (rebuild) FAILMAP_TRY(m_db.exec("PRAGMA foreign_keys=ON"));
      continue;
    }
    m_fixture_rows = v < k_case_fixtures_schema_version;
    m_seal_digests = v >= k_seal_digests_schema_version;
    if (auto s = m_db.exec(sql); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (rebuild) {
      if (auto s = split_case_texts(); !s)
        return input_error("migration " + std::to_string(v) + ": " + s.error().message);
      if (auto s = m_db.check_foreign_keys(); !s)
        return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    }
    if (v == k_repair_salts_schema_version) FAILMAP_TRY(fill_missing_repair_salts());
    if (v == k_commitment_bytes_schema_version)
      if (auto s = commitments_to_bytes(); !s)
        return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (v == k_seal_digests_schema_version)
      if (auto s = fill_seal_digests(); !s)
        return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (v == k_compact_runs_schema_version)
      if (auto s = compact_v4_runs(); !s)
        return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    FAILMAP_TRY(m_db.exec("PRAGMA user_version = " + std::to_string(v)));
    FAILMAP_TRY(tx.commit());
    if (rebuild) FAILMAP_TRY(m_db.exec("PRAGMA foreign_keys=ON"));
  }
  m_fixture_rows = false;
  m_seal_digests = true;
  return ok_status();
}

Status Archive::fill_seal_digests() {
  FAILMAP_TRY_ASSIGN(auto rows, seal_mismatches({}));
  return store_seal_digests(rows);
}

Status Archive::fill_missing_repair_salts() {
  std::vector<std::string> ids;
  {
    FAILMAP_TRY_ASSIGN(
        auto st, m_db.prepare("SELECT id FROM cases WHERE id NOT IN (SELECT case_id FROM repair_salts) ORDER BY id"));
    FAILMAP_TRY(st.for_each_row([&]() -> Status {
      ids.push_back(st.column_text(0));
      return ok_status();
    }));
  }
  for (const std::string& id : ids) {
    FAILMAP_TRY_ASSIGN(auto salt, make_repair_salt());
    FAILMAP_TRY(set_repair_seal(id, RepairSeal{salt, {}}));
  }
  return ok_status();
}

Status Archive::compact_v4_runs() {
  {
    FAILMAP_TRY_ASSIGN(
        auto st,
        m_db.prepare(
            "SELECT case_id, strategy, observation, exit_status, digest, failmap_version, recorded_at FROM runs_v4 "
            "ORDER BY case_id, strategy"));
    std::optional<Case> fixtures;
    if (Status each = st.for_each_row([&]() -> Status {
          RunRecord run;
          run.case_id = st.column_text(0);
          auto k = parse_strategy(st.column_text(1));
          if (!k) return input_error("case " + run.case_id + ", run: " + k.error().message);
          run.strategy = *k;
          run.observation = st.column_text(2);
          run.exit_status = static_cast<int>(st.column_int(3));
          run.digest = st.column_text(4);
          run.failmap_version = st.column_text(5);
          run.recorded_at = st.column_text(6);
          if (!fixtures || fixtures->id != run.case_id) {
            FAILMAP_TRY_ASSIGN(fixtures, load_fixtures(run.case_id));
          }
          FAILMAP_TRY(record_run(run, *fixtures));
          return ok_status();
        });
        !each)
      return each;
  }
  {
    FAILMAP_TRY_ASSIGN(auto st,
                       m_db.prepare("SELECT id, case_digest FROM cases WHERE case_digest IS NOT NULL ORDER BY id"));
    if (Status each = st.for_each_row([&]() -> Status {
          FAILMAP_TRY(set_case_digest(st.column_text(0), st.column_text(1)));
          return ok_status();
        });
        !each)
      return each;
  }
  m_db.clear_cached();  // statements on the tables about to change
  return m_db.exec("DROP TABLE runs_v4; ALTER TABLE cases DROP COLUMN case_digest;");
}

Status Archive::commitments_to_bytes() {
  {
    FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT case_id, salt, commitment FROM repair_salts ORDER BY case_id"));
    FAILMAP_TRY_ASSIGN(auto insert,
                       m_db.prepare("INSERT INTO repair_salts_v8(case_id, salt, commitment) VALUES (?1, ?2, ?3)"));
    if (Status each = st.for_each_row([&]() -> Status {
          insert.reset();
          insert.bind(1, st.column_view(0));
          if (st.column_is_null(1)) insert.bind_null(2);
          else insert.bind_blob(2, st.column_view(1));
          Sha256Bytes commitment{};
          if (st.column_is_null(2)) {
            insert.bind_null(3);
          } else if (parse_sha256_hex(st.column_view(2), &commitment)) {
            insert.bind_blob(3, digest_view(commitment));
          } else {
            return input_error(m_db.path() + ": case " + st.column_text(0) + ": repair commitment '" +
                               st.column_text(2) + "' is not 64 lower-case hex");
          }
          if (auto s = insert.run(); !s) return input_error("case " + st.column_text(0) + ": " + s.error().message);
          return ok_status();
        });
        !each)
      return each;
  }
  m_db.clear_cached();  // statements on the table about to change
  return m_db.exec("DROP TABLE repair_salts; ALTER TABLE repair_salts_v8 RENAME TO repair_salts;");
}

Status Archive::split_case_texts() {
  {
    // Version-6 rows: the case columns are still all in `cases`.
    FAILMAP_TRY_ASSIGN(
        auto st, m_db.prepare(std::string("SELECT ") + k_case_columns + ", field_digests FROM cases ORDER BY id"));
    FAILMAP_TRY_ASSIGN(
        auto insert,
        m_db.prepare(
            "INSERT INTO cases_v7(id, mechanism_id, variant, tier, text_id, params, evaluation_group, "
            "recorded_runtime, "
            "recorded_at, published_case_digest, fixture_labels, fixture_values, field_digests) "
            "SELECT id, mechanism_id, variant, tier, ?2, params, evaluation_group, recorded_runtime, recorded_at, "
            "published_case_digest, fixture_labels, fixture_values, ?3 FROM cases WHERE id = ?1"));
    Case c;
    if (Status each = st.for_each_row([&]() -> Status {
          std::string where = m_db.path() + ": case " + st.column_text(0);
          FAILMAP_TRY(decode_case_columns(st, c, where, nullptr));
          // The old object's digests are kept when it has them all, so `verify`
          // names what it named before; otherwise the texts' are computed and
          // the row's stay NULL, as the old column was.
          std::map<std::string, std::string> old;
          bool complete = false;
          if (!st.column_is_null(19)) {
            FAILMAP_TRY_ASSIGN(old, parse_field_digests(st.column_view(19), where + ", field field_digests"));
            complete = true;
            for (const auto* names : {&k_text_digest_fields, &k_row_digest_fields})
              for (std::string_view n : *names) complete = complete && old.count(std::string(n)) != 0;
          }
          if (!complete) {
            auto d = compute_case_digests(c, {});
            if (!d) return input_error(where + ": " + d.error().message);
            for (std::string_view n : k_text_digest_fields) old[std::string(n)] = d->fields.at(std::string(n));
          }
          auto text_digests = pack_field_digests(old, k_text_digest_fields);
          if (!text_digests) return input_error(where + ": " + text_digests.error().message);
          FAILMAP_TRY_ASSIGN(auto text_id, text_id_for(c, *text_digests));
          insert.bind(1, c.id);
          insert.bind(2, text_id);
          if (complete) {
            auto row = pack_field_digests(old, k_row_digest_fields);
            if (!row) return input_error(where + ": " + row.error().message);
            insert.bind_blob(3, *row);
          } else {
            insert.bind_null(3);
          }
          if (auto s = insert.run(); !s) return input_error(where + ": " + s.error().message);
          return ok_status();
        });
        !each)
      return each;
  }
  m_db.clear_cached();  // statements on the table about to be dropped
  return m_db.exec(
      "DROP TABLE cases; ALTER TABLE cases_v7 RENAME TO cases; "
      "CREATE INDEX cases_by_mechanism ON cases(mechanism_id, id);");
}

}  // namespace failmap
