#include "store/archive.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdint>
#include <filesystem>

#include "io/embedded.h"
#include "io/json.h"
#include "io/observation.h"
#include "io/pyjson.h"
#include "io/sha256.h"

namespace failmap {
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

std::string params_json(const Bindings& params) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : params) {
    if (!first) out += ", ";
    first = false;
    append_python_json_string(out, k);
    out += ": ";
    append_python_json(out, v);
  }
  return out + "}";
}

std::string tags_json(const std::vector<std::string>& tags) {
  Value::List items;
  for (const auto& t : tags) items.push_back(Value::str(t));
  return python_json(Value::list(std::move(items)));
}

// fixture_labels and fixture_values of a case row (schema/006_case_fixtures.sql).
std::string fixture_labels_json(const std::vector<Fixture>& fixtures) {
  std::string out = "[";
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    if (i) out += ", ";
    append_python_json_string(out, fixtures[i].label);
  }
  return out + "]";
}

std::string fixture_values_json(const std::vector<Fixture>& fixtures) {
  std::string out = "[";
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    if (i) out += ", ";
    out += "[[";
    for (std::size_t a = 0; a < fixtures[i].args.size(); ++a) {
      if (a) out += ", ";
      append_python_json(out, fixtures[i].args[a]);
    }
    out += "], ";
    append_python_json(out, fixtures[i].expected);
    out += ']';
  }
  return out + "]";
}

/// A SHA-256 digest as the 32-byte blob SQLite stores.
inline std::string_view digest_view(const Sha256Bytes& d) { return {reinterpret_cast<const char*>(d.data()), d.size()}; }

#define FAILMAP_CASE_COLUMNS                                                                                 \
  "id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, " \
  "why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, published_case_digest, " \
  "fixture_labels, fixture_values"
constexpr const char* k_case_columns = FAILMAP_CASE_COLUMNS;
// The tables FAILMAP_CASE_COLUMNS come from (schema/007). CROSS JOIN keeps
// cases the outer loop, so ORDER BY id streams from its index instead of
// sorting: SQLite would otherwise start from the few case_texts rows.
#define FAILMAP_CASE_TABLES "cases CROSS JOIN case_texts USING (text_id)"
constexpr const char* k_case_tables = FAILMAP_CASE_TABLES;

}  // namespace

std::string utc_now_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int Archive::current_schema_version() {
  int v = 0;
  for (const auto& m : migrations()) v = std::max(v, m.first);
  return v;
}

Result<Statement*> Archive::cached(std::string_view sql) {
  auto it = m_statements->find(sql);
  if (it == m_statements->end()) {
    auto st = m_db.prepare(sql);
    if (!st) return st.error();
    it = m_statements->emplace(std::string(sql), std::move(*st)).first;
  }
  it->second.reset();
  return &it->second;
}

Result<Archive> Archive::open(const std::string& path, Mode mode) {
  auto db = Database::open(path, mode);
  if (!db) return db.error();
  Archive a(std::move(*db));
  if (auto s = a.migrate(mode); !s) return s.error();
  return a;
}

Result<int> Archive::schema_version() {
  auto st = m_db.prepare("PRAGMA user_version");
  if (!st) return st.error();
  auto row = st->step();
  if (!row) {
    // SQLite reports a write-protected file or folder on the first statement of a read-write open.
    std::error_code ec;
    if (row.error().message.find("readonly database") != std::string::npos &&
        std::filesystem::exists(m_db.path() + "-journal", ec))
      return input_error(m_db.path() + ": an interrupted write left " + m_db.path() +
                         "-journal to roll back, and the archive file or folder is read-only here; a command "
                         "that writes (e.g. `failmap migrate`) rolls it back where it is writable");
    if (row.error().message.find("readonly database") != std::string::npos)
      return read_only_archive(m_db.path());
    return input_error(m_db.path() + ": not a failmap archive (" + row.error().message + ")");
  }
  return static_cast<int>(st->column_int(0));
}

Status Archive::migrate(Mode mode) {
  auto version = schema_version();
  if (!version) return version.error();
  int current = current_schema_version();
  if (*version > current)
    return input_error(m_db.path() + ": archive schema version " + std::to_string(*version) +
                       " was written by a newer failmap; this one reads up to version " + std::to_string(current) +
                       ". Upgrade failmap.");
  if (*version == 0) {  // a non-empty SQLite file that is not ours must not be touched
    auto st = m_db.prepare("SELECT count(*) FROM sqlite_schema");
    if (!st) return st.error();
    if (auto r = st->step(); !r) return r.error();
    if (st->column_int(0) != 0)
      return input_error(m_db.path() + ": not a failmap archive (a SQLite database with foreign tables)");
  }
  if (mode != Mode::ReadOnly) {
    // WAL, unless another writer has the archive in rollback-journal mode
    // for its transaction (RollbackJournal): it returns to WAL when done, and
    // this connection's own transaction waits for it (busy timeout).
    if (auto journal = m_db.set_journal_mode("wal"); !journal) return journal.error();
    if (auto s = m_db.exec("PRAGMA synchronous=NORMAL"); !s) return s;
  }
  if (auto s = m_db.exec("PRAGMA foreign_keys=ON"); !s) return s;
  if (*version == current) return ok_status();
  std::error_code size_error;
  if (mode == Mode::ReadOnly && *version == 0 && std::filesystem::file_size(m_db.path(), size_error) == 0 && !size_error)
    return input_error(m_db.path() + ": an empty file, not a failmap archive yet (a command that writes, e.g. "
                       "`failmap import cases/`, makes it one)");
  if (mode == Mode::ReadOnly)
    return input_error(m_db.path() + ": archive schema version " + std::to_string(*version) + " needs migration to " +
                       std::to_string(current) + "; run `failmap migrate` once (it writes)");
  for (const auto& [v, sql] : migrations()) {
    if (v <= *version) continue;
    // Migration 7 rebuilds cases; with foreign keys on, dropping the old
    // table would delete its runs, digests and salts. The pragma is a no-op
    // inside a transaction, so it is set around it (an error return leaves
    // it off on a connection that is then closed).
    bool rebuild = v == k_case_texts_schema_version;
    if (rebuild)
      if (auto s = m_db.exec("PRAGMA foreign_keys=OFF"); !s) return s;
    Transaction tx(m_db);
    if (auto s = tx.begin(); !s) return s;
    m_fixture_rows = v < k_case_fixtures_schema_version;
    m_seal_digests = v >= k_seal_digests_schema_version;
    if (auto s = m_db.exec(sql); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (rebuild) {
      if (auto s = split_case_texts(); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
      if (auto s = m_db.check_foreign_keys(); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    }
    if (v == k_repair_salts_schema_version)
      if (auto s = fill_missing_repair_salts(); !s) return s;
    if (v == k_commitment_bytes_schema_version)
      if (auto s = commitments_to_bytes(); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (v == k_seal_digests_schema_version)
      if (auto s = fill_seal_digests(); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (v == k_compact_runs_schema_version)
      if (auto s = compact_v4_runs(); !s) return input_error("migration " + std::to_string(v) + ": " + s.error().message);
    if (auto s = m_db.exec("PRAGMA user_version = " + std::to_string(v)); !s) return s;
    if (auto s = tx.commit(); !s) return s;
    if (rebuild)
      if (auto s = m_db.exec("PRAGMA foreign_keys=ON"); !s) return s;
  }
  m_fixture_rows = false;
  m_seal_digests = true;
  return ok_status();
}

CaseInsertTexts case_insert_texts(const Case& c, const CaseDigests* digests) {
  CaseInsertTexts t{params_json(c.params), tags_json(c.evaluation_group), fixture_labels_json(c.fixtures),
                    fixture_values_json(c.fixtures), {}, {}};
  if (digests) {  // packed by compute_case_digests; else from the map (which then has every member)
    t.row_field_digests = digests->row_packed;
    t.text_field_digests = digests->text_packed;
    if (t.row_field_digests.empty())
      if (auto row = pack_field_digests(digests->fields, k_row_digest_fields)) t.row_field_digests = std::move(*row);
    if (t.text_field_digests.empty())
      if (auto text = pack_field_digests(digests->fields, k_text_digest_fields)) t.text_field_digests = std::move(*text);
  }
  return t;
}

Archive::InsertMemo* Archive::insert_memo() {
  if (sqlite3_get_autocommit(m_db.handle())) return nullptr;
  if (m_insert_memo.serial != m_db.transaction_serial()) m_insert_memo = InsertMemo{m_db.transaction_serial(), {}, 0, {}, {}};
  return &m_insert_memo;
}

Result<std::int64_t> Archive::text_id_for(const Case& c, std::string_view text_digests) {
  const std::string* texts[] = {&c.title,
                                &c.prose.summary,
                                &c.prose.root_cause,
                                &c.prose.failure,
                                &c.prose.unsuccessful_approach,
                                &c.prose.contract,
                                &c.prose.why_it_matters,
                                &c.prose.scope};
  auto same_texts = [&](const auto& column) {
    for (int i = 0; i < 8; ++i)
      if (column(i) != *texts[i]) return false;
    return true;
  };
  InsertMemo* memo = insert_memo();
  // The row the query below would find: rows are only added in a
  // transaction (set_case_digests clears the memo when it changes digests),
  // and an added row never sorts before the one remembered.
  if (memo && memo->text_id != 0 && memo->text_digests == text_digests &&
      same_texts([&](int i) -> std::string_view { return memo->texts[i]; }))
    return memo->text_id;
  auto remember = [&](std::int64_t id) {
    if (!memo) return id;
    memo->text_id = id;
    memo->text_digests = text_digests;
    for (int i = 0; i < 8; ++i) memo->texts[i] = *texts[i];
    return id;
  };
  {
    // The digests find the row; the texts themselves decide (a row edited
    // by hand keeps its old digests until `digest regenerate`).
    auto st = cached(
        "SELECT text_id, title, summary, root_cause, failure, unsuccessful_approach, contract, why_it_matters, scope "
        "FROM case_texts WHERE field_digests = ?1 ORDER BY text_id");
    if (!st) return st.error();
    (*st)->bind_blob(1, text_digests);
    for (;;) {
      auto r = (*st)->step();
      if (!r) return r.error();
      if (!*r) break;
      if (same_texts([&](int i) { return (*st)->column_view(1 + i); })) {
        std::int64_t id = (*st)->column_int(0);
        (*st)->reset();
        return remember(id);
      }
    }
  }
  auto st = cached(
      "INSERT INTO case_texts(title, summary, root_cause, failure, unsuccessful_approach, contract, why_it_matters, scope, "
      "field_digests) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!st) return st.error();
  for (int i = 0; i < 8; ++i) (*st)->bind_static(1 + i, *texts[i]);
  (*st)->bind_blob_static(9, text_digests);
  if (auto s = (*st)->run(); !s) return input_error("case " + c.id + ": " + s.error().message);
  return remember(static_cast<std::int64_t>(sqlite3_last_insert_rowid(m_db.handle())));
}

Status Archive::insert_case(const Case& c, const CaseDigests* digests, const RepairSeal* seal, const CaseInsertTexts* texts) {
  std::optional<CaseInsertTexts> computed;
  if (!texts) texts = &computed.emplace(case_insert_texts(c, digests));
  std::string text_digests = texts->text_field_digests;
  if (text_digests.empty()) {  // no digests given: those of the texts are needed to share them
    auto d = compute_case_digests(c, {});
    if (!d) return input_error("case " + c.id + ": " + d.error().message);
    auto packed = pack_field_digests(d->fields, k_text_digest_fields);
    if (!packed) return packed.error();
    text_digests = std::move(*packed);
  }
  auto text_id = text_id_for(c, text_digests);
  if (!text_id) return text_id.error();
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  InsertMemo* memo = insert_memo();
  if (!memo || !memo->mechanisms.contains(m->id)) {
    auto prepared = cached("INSERT OR IGNORE INTO mechanisms(id, title, evaluation_group) VALUES (?1, ?2, ?3)");
    if (!prepared) return prepared.error();
    Statement* st = *prepared;
    std::vector<std::string> tags(m->evaluation_group.begin(), m->evaluation_group.end());
    st->bind(1, m->id);
    st->bind(2, m->title);
    st->bind(3, tags_json(tags));
    if (auto s = st->run(); !s) return s;
    if (memo) memo->mechanisms.emplace(m->id);
  }
  {
    auto prepared = cached(
        "INSERT INTO cases(id, mechanism_id, variant, tier, text_id, params, evaluation_group, recorded_runtime, "
        "recorded_at, published_case_digest, fixture_labels, fixture_values, field_digests) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    if (!prepared) return prepared.error();
    Statement* st = *prepared;
    // Every bound string outlives the run(): no copies (SQLITE_STATIC).
    st->bind_static(1, c.id);
    st->bind_static(2, c.mechanism);
    st->bind(3, std::int64_t{c.variant});
    st->bind(4, tier_name(c.tier));
    st->bind(5, *text_id);
    st->bind_static(6, texts->params);
    st->bind_static(7, texts->evaluation_group);
    st->bind_static(8, c.recorded_runtime);
    st->bind_static(9, c.recorded_at);
    st->bind_static(10, c.published.case_digest);
    st->bind_static(11, texts->fixture_labels);
    st->bind_static(12, texts->fixture_values);
    if (digests && !texts->row_field_digests.empty()) st->bind_blob_static(13, texts->row_field_digests);
    else st->bind_null(13);
    if (auto s = st->run(); !s) return input_error("case " + c.id + ": " + s.error().message);
  }
  // The id is new, so its digest and seal rows are too (they cascade with
  // the case row): a plain INSERT, without the statement journal that OR
  // REPLACE's delete-then-insert opens for every row.
  if (digests) {
    Sha256Bytes d{};
    if (!parse_sha256_hex(digests->case_digest, &d))
      return input_error("case " + c.id + ": case digest '" + digests->case_digest + "' is not a SHA-256 hex digest");
    auto prepared = cached("INSERT INTO case_digests(case_id, digest) VALUES (?1, ?2)");
    if (!prepared) return prepared.error();
    (*prepared)->bind_static(1, c.id);
    (*prepared)->bind_blob_static(2, digest_view(d));
    if (auto s = (*prepared)->run(); !s) {
      // The id is new to `cases`, so a row already here was left by a case
      // deleted outside failmap: name that cause rather than SQLite's words.
      auto left = cached("SELECT 1 FROM case_digests WHERE case_id = ?1");
      if (left) {
        (*left)->bind(1, c.id);
        auto found = (*left)->step();
        (*left)->reset();
        if (found && *found)
          return input_error("case " + c.id + ": table case_digests already holds a row for this id, though the case "
                             "is not in the archive (deleted outside failmap, with foreign keys off); `failmap verify` "
                             "lists such rows");
      }
      return input_error("case " + c.id + ": case digest: " + s.error().message);
    }
  }
  if (!c.published.runs.empty()) {
    auto prepared = cached("INSERT INTO published_runs(case_id, strategy, exit_status, digest) VALUES (?1, ?2, ?3, ?4)");
    if (!prepared) return prepared.error();
    Statement* st = *prepared;
    for (const PublishedRun& r : c.published.runs) {
      st->bind(1, c.id);
      st->bind(2, strategy_name(r.strategy));
      st->bind(3, std::int64_t{r.exit_status});
      st->bind(4, r.digest);
      if (auto s = st->run(); !s) return s;
    }
  }
  if (seal) return write_repair_seal("INSERT", c.id, *seal);
  auto salt = make_repair_salt();
  if (!salt) return salt.error();
  return write_repair_seal("INSERT", c.id, RepairSeal{*salt, {}});
}

Result<RepairSeal> Archive::repair_seal(const std::string& case_id) {
  auto st = cached("SELECT salt, commitment FROM repair_salts WHERE case_id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, case_id);
  auto row = (*st)->step();
  if (!row) return row.error();
  if (!*row) return input_error(m_db.path() + ": case " + case_id + " has no repair salt (table repair_salts)");
  RepairSeal seal;
  Status s = decode_seal(**st, 0, case_id, seal);
  (*st)->reset();
  if (!s) return s.error();
  return seal;
}

Status Archive::decode_seal(Statement& st, int first, const std::string& case_id, RepairSeal& seal) {
  seal = RepairSeal{};
  if (!st.column_is_null(first)) {
    std::string bytes = st.column_blob(first);
    if (bytes.size() != seal.salt.emplace().size())
      return input_error(m_db.path() + ": case " + case_id + ": repair salt is not 32 bytes");
    std::copy(bytes.begin(), bytes.end(), seal.salt->begin());
  }
  if (!st.column_is_null(first + 1)) {  // 32 bytes (schema/008), shown as hex
    std::string_view bytes = st.column_view(first + 1);
    if (bytes.size() != 32) return input_error(m_db.path() + ": case " + case_id + ": repair commitment is not 32 bytes");
    seal.commitment = to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  }
  return ok_status();
}

Status Archive::set_repair_seal(const std::string& case_id, const RepairSeal& seal) {
  return write_repair_seal("INSERT OR REPLACE", case_id, seal);
}

Result<Sha256Bytes> seal_digest(const RepairSeal& seal) {
  std::string text("failmap-seal-v1\0", 16);
  if (seal.salt) {
    text.append("salt\0", 5);
    text.append(reinterpret_cast<const char*>(seal.salt->data()), seal.salt->size());
  } else {
    Sha256Bytes commitment{};
    if (!parse_sha256_hex(seal.commitment, &commitment))
      return input_error("repair commitment '" + seal.commitment + "' is not a SHA-256 hex digest");
    text.append("commitment\0", 11);
    text.append(digest_view(commitment));
  }
  return sha256_bytes(text);
}

Status Archive::write_repair_seal(std::string_view verb, const std::string& case_id, const RepairSeal& seal) {
  auto st = cached(std::string(verb) + (m_seal_digests
                                            ? " INTO repair_salts(case_id, salt, commitment, seal_digest) VALUES (?1, ?2, ?3, ?4)"
                                            : " INTO repair_salts(case_id, salt, commitment) VALUES (?1, ?2, ?3)"));
  if (!st) return st.error();
  Sha256Bytes commitment{};
  if (!seal.salt && !parse_sha256_hex(seal.commitment, &commitment))
    return input_error("case " + case_id + ": repair commitment '" + seal.commitment + "' is not a SHA-256 hex digest");
  auto digest = seal_digest(seal);
  if (!digest) return input_error("case " + case_id + ": " + digest.error().message);
  if (m_seal_digests) (*st)->bind_blob_static(4, digest_view(*digest));
  (*st)->bind_static(1, case_id);
  if (seal.salt) (*st)->bind_blob_static(2, std::string_view(reinterpret_cast<const char*>(seal.salt->data()), seal.salt->size()));
  else (*st)->bind_null(2);
  if (seal.salt) (*st)->bind_null(3);
  else (*st)->bind_blob_static(3, digest_view(commitment));
  if (auto s = (*st)->run(); !s) return input_error("case " + case_id + ": repair salt: " + s.error().message);
  return ok_status();
}

Result<std::vector<SealMismatch>> Archive::seal_mismatches(const std::vector<std::string>& ids) {
  const std::set<std::string> wanted(ids.begin(), ids.end());
  auto st = m_db.prepare("SELECT case_id, salt, commitment, seal_digest FROM repair_salts ORDER BY case_id");
  if (!st) return st.error();
  std::vector<SealMismatch> out;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    std::string id = st->column_text(0);
    if (!wanted.empty() && !wanted.count(id)) continue;
    RepairSeal seal;
    if (Status d = decode_seal(*st, 1, id, seal); !d) return d.error();
    auto digest = seal_digest(seal);
    if (!digest) return input_error(m_db.path() + ": case " + id + ": " + digest.error().message);
    const std::string recomputed = to_hex(digest->data(), digest->size());
    std::string stored = "null";
    if (!st->column_is_null(3)) {
      std::string_view bytes = st->column_view(3);
      stored = to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    }
    if (stored != recomputed)
      out.push_back(SealMismatch{std::move(id), seal.salt ? "repair_salt" : "repair_commitment", stored, recomputed});
  }
  return out;
}

Status Archive::store_seal_digests(const std::vector<SealMismatch>& rows) {
  auto st = cached("UPDATE repair_salts SET seal_digest = ?2 WHERE case_id = ?1");
  if (!st) return st.error();
  for (const SealMismatch& m : rows) {
    Sha256Bytes digest{};
    if (!parse_sha256_hex(m.recomputed, &digest)) return input_error("case " + m.case_id + ": seal digest is not hex");
    (*st)->reset();
    (*st)->bind(1, m.case_id);
    (*st)->bind_blob(2, digest_view(digest));
    if (auto s = (*st)->run(); !s) return s;
  }
  return ok_status();
}

Status Archive::fill_seal_digests() {
  auto rows = seal_mismatches({});  // every row: their seal_digest is NULL
  if (!rows) return rows.error();
  return store_seal_digests(*rows);
}

Status Archive::fill_missing_repair_salts() {
  std::vector<std::string> ids;
  {
    auto st = m_db.prepare("SELECT id FROM cases WHERE id NOT IN (SELECT case_id FROM repair_salts) ORDER BY id");
    if (!st) return st.error();
    for (;;) {
      auto row = st->step();
      if (!row) return row.error();
      if (!*row) break;
      ids.push_back(st->column_text(0));
    }
  }
  for (const std::string& id : ids) {
    auto salt = make_repair_salt();
    if (!salt) return salt.error();
    if (auto s = set_repair_seal(id, RepairSeal{*salt, {}}); !s) return s;
  }
  return ok_status();
}

Result<std::uint64_t> Archive::delete_case(const std::string& id) {
  auto count = cached("SELECT count(*) FROM runs WHERE case_id = ?1");
  if (!count) return count.error();
  (*count)->bind(1, id);
  auto row = (*count)->step();
  if (!row) return row.error();
  auto runs = static_cast<std::uint64_t>(*row ? (*count)->column_int(0) : 0);
  (*count)->reset();
  auto st = cached("DELETE FROM cases WHERE id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, id);
  if (auto s = (*st)->run(); !s) return s.error();
  return runs;
}

namespace {

// The fixture_labels column (schema/006) as strings.
Result<std::vector<std::string>> parse_fixture_labels(std::string_view labels, const std::string& where) {
  auto label_texts = json_array_elements(labels);
  if (!label_texts) return input_error(where + ", field fixture_labels: expected a JSON array of strings, got " +
                                          describe_json_text(labels));
  std::vector<std::string> out;
  out.reserve(label_texts->size());
  for (std::size_t i = 0; i < label_texts->size(); ++i) {
    auto label = parse_value_text((*label_texts)[i], where + ", field fixture_labels[" + std::to_string(i) + "]");
    if (!label) return label.error();
    if (!label->is_str()) return input_error(where + ", field fixture_labels[" + std::to_string(i) + "]: expected a string, got " +
                         describe_json_text((*label_texts)[i]));
    out.push_back(std::move(label->as_str()));
  }
  return out;
}

// The fixture_values column (schema/006) split into per-fixture texts, one per label.
Result<std::vector<StoredFixtureText>> split_fixture_values(const std::vector<std::string>& labels, std::string_view values,
                                                            const std::string& where) {
  auto pairs = json_array_elements(values);
  if (!pairs) return input_error(where + ", field fixture_values: expected a JSON array of [args, expected] pairs, got " +
                                    describe_json_text(values));
  if (pairs->size() != labels.size())
    return input_error(where + ": " + std::to_string(labels.size()) + " fixture label(s) but " +
                       std::to_string(pairs->size()) + " [args, expected] pair(s)");
  std::vector<StoredFixtureText> out(pairs->size());
  for (std::size_t i = 0; i < pairs->size(); ++i) {
    out[i].label = labels[i];
    auto pair = json_array_elements((*pairs)[i]);
    if (!pair || pair->size() != 2)
      return input_error(where + ", fixture '" + out[i].label + "': expected an [args, expected] pair in fixture_values, got " +
                         (pair ? "an array of " + std::to_string(pair->size()) + " element(s)"
                               : describe_json_text((*pairs)[i])));
    out[i].args = (*pair)[0];
    out[i].expected = (*pair)[1];
  }
  return out;
}

// The fast path of decode_fixtures: `values` exactly as fixture_values_json
// writes integer fixtures ("[[[1, 1, 1], 2], [[], 0]]"), one pair per label,
// parsed straight into `fixtures` without splitting the text first. The
// fixtures' vectors and strings are reused (a case of the shape the slot's
// last case had allocates nothing). False for any other text, `fixtures`
// then unspecified: the general path decodes it or names what is wrong.
bool decode_int_fixture_values(const std::vector<std::string>& labels, std::string_view values,
                               std::vector<Fixture>& fixtures) {
  std::size_t pos = 0;
  auto literal = [&](std::string_view s) {
    if (values.substr(pos, s.size()) != s) return false;
    pos += s.size();
    return true;
  };
  if (!literal("[")) return false;
  fixtures.resize(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    Fixture& f = fixtures[i];
    if (!literal(i ? ", [[" : "[[") || !parse_int_list_items(values, &pos, &f.args) || !literal(", ") ||
        !parse_int_value_into(values, &pos, &f.expected) || !literal("]"))
      return false;
    f.label.assign(labels[i]);
  }
  return literal("]") && pos == values.size();
}

}  // namespace

Result<std::vector<StoredFixtureText>> split_stored_fixtures(std::string_view labels, std::string_view values,
                                                             const std::string& where) {
  auto parsed = parse_fixture_labels(labels, where);
  if (!parsed) return parsed.error();
  return split_fixture_values(*parsed, values, where);
}

namespace {

// The cache's parsed labels when `labels` is the text they were parsed
// from (every case of a mechanism shares its labels), else nullptr.
const std::vector<std::string>* cached_labels(const Archive::DecodeCache* cache, std::string_view labels) {
  return cache && !cache->labels_text.empty() && cache->labels_text == labels ? &cache->labels : nullptr;
}

// decode_fixtures' fast path alone, without building error text: labels
// the cache holds and integer fixture values. False otherwise, c.fixtures
// then unspecified.
bool decode_cached_int_fixtures(std::string_view labels, std::string_view values, Case& c,
                                const Archive::DecodeCache* cache) {
  const std::vector<std::string>* parsed = cached_labels(cache, labels);
  return parsed && decode_int_fixture_values(*parsed, values, c.fixtures);
}

}  // namespace

Status Archive::decode_fixtures(std::string_view labels, std::string_view values, Case& c, const std::string& where,
                                DecodeCache* cache) {
  // With a cache, labels are parsed once per run of equal texts.
  std::vector<std::string> local;
  const std::vector<std::string>* parsed = cached_labels(cache, labels);
  if (!parsed) {
    parsed = &local;
    auto fresh = parse_fixture_labels(labels, where);
    if (!fresh) return fresh.error();
    if (cache) {
      cache->labels_text = labels;
      cache->labels = std::move(*fresh);
      parsed = &cache->labels;
    } else {
      local = std::move(*fresh);
    }
  }
  if (decode_int_fixture_values(*parsed, values, c.fixtures)) return ok_status();
  auto split = split_fixture_values(*parsed, values, where);
  if (!split) return split.error();
  std::vector<StoredFixtureText>& texts = *split;
  c.fixtures.clear();
  c.fixtures.reserve(texts.size());
  for (StoredFixtureText& t : texts) {
    Fixture& f = c.fixtures.emplace_back();
    f.label = std::move(t.label);
    // Integer lists (most fixtures) without building error text first.
    auto args = parse_int_value_text(t.args);
    auto expected = parse_int_value_text(t.expected);
    if (!args || !expected) {
      std::string at = where + ", fixture '" + f.label + "'";
      auto a = parse_value_text(t.args, at + " field args");
      if (!a) return a.error();
      auto e = parse_value_text(t.expected, at + " field expected");
      if (!e) return e.error();
      args = std::move(*a);
      expected = std::move(*e);
    }
    if (!args->is_list())
      return input_error(where + ", fixture '" + f.label + "' field args: expected a JSON array, got " +
                         describe_json_text(t.args));
    f.args = std::move(args->as_list());
    f.expected = std::move(*expected);
  }
  return ok_status();
}

Status Archive::read_fixtures(Case& c, const std::string& where) {
  if (m_fixture_rows) {  // schema version 5 or older, mid-migration
    auto st = m_db.prepare("SELECT label, args, expected FROM fixtures WHERE case_id = ?1 ORDER BY position");
    if (!st) return st.error();
    st->bind(1, c.id);
    std::string labels = "[", values = "[";
    for (;;) {
      auto r = st->step();
      if (!r) return r.error();
      if (!*r) break;
      if (labels.size() > 1) labels += ", ", values += ", ";
      append_python_json_string(labels, st->column_view(0));
      values += "[" + st->column_text(1) + ", " + st->column_text(2) + "]";
    }
    return decode_fixtures(labels + "]", values + "]", c, where, nullptr);
  }
  auto st = cached("SELECT fixture_labels, fixture_values FROM cases WHERE id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, c.id);
  auto r = (*st)->step();
  if (!r) return r.error();
  if (!*r) return input_error(where + ": no such case");
  Status s = decode_fixtures((*st)->column_view(0), (*st)->column_view(1), c, where, nullptr);
  (*st)->reset();
  return s;
}

Result<Case> Archive::load_fixtures(const std::string& case_id) {
  Case c;
  c.id = case_id;
  if (auto s = read_fixtures(c, m_db.path() + ": case " + case_id); !s) return s.error();
  return c;
}

Status check_stored_binding(const Case& c, const std::string& where) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return ok_status();
  if (auto problem = binding_problem(*m, c.params)) return input_error(where + ", field " + problem->field + ": " + problem->what);
  return ok_status();
}

namespace {

// Python-JSON params of one name bound to a value ("{\"N\": 1}", as
// params_json writes them) without a JSON tree; nullopt for anything else.
std::optional<Bindings> parse_single_binding(std::string_view text, const std::string& where) {
  if (text.size() < 7 || text.substr(0, 2) != "{\"" || text.back() != '}') return std::nullopt;
  std::size_t close = text.find('"', 2);
  if (close == std::string_view::npos || text.substr(close, 3) != "\": ") return std::nullopt;
  std::string_view name = text.substr(2, close - 2);
  if (name.find('\\') != std::string_view::npos) return std::nullopt;
  std::string_view value = text.substr(close + 3, text.size() - close - 4);
  if (value.empty() || value.find_first_not_of("-0123456789") != std::string_view::npos) return std::nullopt;
  auto v = parse_value_text(value, where);
  if (!v) return std::nullopt;
  return Bindings{{std::string(name), std::move(*v)}};
}

// The evaluation_group column (a JSON array of strings) into
// c.evaluation_group, which must be empty; with a cache, a run of equal
// texts is parsed once.
Status decode_evaluation_group(std::string_view text, Case& c, const std::string& where, Archive::DecodeCache* cache) {
  if (cache && cache->tags_text == text && !cache->tags_text.empty()) {
    c.evaluation_group = cache->tags;
    return ok_status();
  }
  auto tags = parse_json_strict(text, where + ", field evaluation_group");
  if (!tags) return tags.error();
  if (!tags->is_array()) return input_error(where + ", field evaluation_group: expected a JSON array of strings, got " +
                                                  describe_json_value(*tags));
  for (const auto& t : *tags) {
    if (!t.is_string())
      return input_error(where + ", field evaluation_group: expected a JSON array of strings, got " +
                         describe_json_value(t) + " in it");
    c.evaluation_group.push_back(t.get<std::string>());
  }
  if (cache) {
    cache->tags_text = text;
    cache->tags = c.evaluation_group;
  }
  return ok_status();
}

}  // namespace

void Archive::copy_case_columns(Statement& row, Case& c, CaseRowTexts& texts) {
  // assign() reuses the strings' buffers when `c` is reused (Scan::read).
  c.id.assign(row.column_view(0));
  c.mechanism.assign(row.column_view(1));
  c.variant = static_cast<int>(row.column_int(2));
  c.title.assign(row.column_view(3));
  texts.tier.assign(row.column_view(4));
  std::string* prose[] = {&c.prose.summary,  &c.prose.root_cause,     &c.prose.failure, &c.prose.unsuccessful_approach,
                          &c.prose.contract, &c.prose.why_it_matters, &c.prose.scope};
  for (int i = 0; i < 7; ++i) prose[i]->assign(row.column_view(5 + i));
  texts.params.assign(row.column_view(12));
  texts.evaluation_group.assign(row.column_view(13));
  c.recorded_runtime.assign(row.column_view(14));
  c.recorded_at.assign(row.column_view(15));
  c.published.case_digest.assign(row.column_view(16));
  c.published.runs.clear();
  texts.fixture_labels.assign(row.column_view(17));
  texts.fixture_values.assign(row.column_view(18));
}

Status decode_stored_params(std::string_view text, Case& c, const std::string& where) {
  c.params.clear();
  if (auto fast = parse_single_binding(text, where + ", field params")) {
    c.params = std::move(*fast);
  } else {
    auto params = parse_json_strict(text, where + ", field params");
    if (!params) return params.error();
    if (!params->is_object())
      return input_error(where + ", field params: expected a JSON object, got " + describe_json_value(*params));
    for (const auto& [k, v] : params->items()) {
      auto val = value_from_json(v, where + ", field params." + k);
      if (!val) return val.error();
      c.params.emplace_back(k, std::move(*val));
    }
  }
  return check_stored_binding(c, where);
}

namespace {

// True when `text` is params_json's spelling of the one integer binding of
// mechanism `m`, at or above its minimum ({"N": 7}): the binding rule
// without a tree or error text, for run --all --no-record's rows. False for
// anything else, which decode_stored_params then parses and names.
bool single_int_binding_ok(std::string_view text, const Mechanism& m) {
  if (m.parameters.size() != 1) return false;
  std::string_view name = m.parameters[0];
  if (text.size() < name.size() + 7 || text.substr(0, 2) != "{\"" || text.substr(2, name.size()) != name ||
      text.substr(2 + name.size(), 3) != "\": " || text.back() != '}')
    return false;
  std::string_view digits = text.substr(name.size() + 5, text.size() - name.size() - 6);
  // Python's spelling of an int only: no leading zero (from_chars takes "007").
  if (digits.size() > 1 && (digits[0] == '0' || (digits[0] == '-' && digits[1] == '0'))) return false;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return false;
  return m.parameter_minimum.empty() || v >= m.parameter_minimum[0];
}

}  // namespace

Status Archive::decode_case_texts(const CaseRowTexts& texts, Case& c, const std::string& where, DecodeCache* cache) {
  auto tier = parse_tier(texts.tier);
  if (!tier) return input_error(where + ", field tier: " + tier.error().message);
  c.tier = *tier;
  c.evaluation_group.clear();
  if (auto s = decode_stored_params(texts.params, c, where); !s) return s;
  if (auto s = decode_evaluation_group(texts.evaluation_group, c, where, cache); !s) return s;
  return decode_fixtures(texts.fixture_labels, texts.fixture_values, c, where, cache);
}

Status Archive::decode_case_columns(Statement& row, Case& c, const std::string& where, DecodeCache* cache) {
  CaseRowTexts texts;
  copy_case_columns(row, c, texts);
  return decode_case_texts(texts, c, where, cache);
}

// Builds a Case from a row of k_case_columns plus its fixtures/published rows.
Result<Case> Archive::case_from_row(Statement& row) {
  Case c;
  std::string where = m_db.path() + ": case " + row.column_text(0);
  if (auto s = decode_case_columns(row, c, where, nullptr); !s) return s.error();
  auto pr_st = cached("SELECT strategy, exit_status, digest FROM published_runs WHERE case_id = ?1");
  if (!pr_st) return pr_st.error();
  Statement* pr = *pr_st;
  pr->bind(1, c.id);
  for (;;) {
    auto r = pr->step();
    if (!r) return r.error();
    if (!*r) break;
    auto s = parse_strategy(pr->column_text(0));
    if (!s) return input_error(where + ", published run: " + s.error().message);
    c.published.runs.push_back(PublishedRun{*s, static_cast<int>(pr->column_int(1)), pr->column_text(2)});
  }
  std::sort(c.published.runs.begin(), c.published.runs.end(),
            [](const PublishedRun& a, const PublishedRun& b) { return a.strategy < b.strategy; });
  return c;
}

Result<std::optional<Case>> Archive::load_case(const std::string& id) {
  auto st = cached("SELECT " FAILMAP_CASE_COLUMNS " FROM " FAILMAP_CASE_TABLES " WHERE id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, id);
  auto r = (*st)->step();
  if (!r) return r.error();
  if (!*r) return std::optional<Case>();
  auto c = case_from_row(**st);
  if (!c) return c.error();
  return std::optional<Case>(std::move(*c));
}

Status Archive::for_each_case(const std::function<Status(const Case&)>& fn) {
  auto st = m_db.prepare(std::string("SELECT ") + k_case_columns + " FROM " + k_case_tables + " ORDER BY id");
  if (!st) return st.error();
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    auto c = case_from_row(*st);
    if (!c) return c.error();
    if (auto s = fn(*c); !s) return s;
  }
  return ok_status();
}

Status Archive::Scan::Cursor::step() {
  auto r = st.step();
  if (!r) return r.error();
  has_row = *r;
  return ok_status();
}

Status Archive::Scan::Cursor::skip_to(std::string_view id) {
  while (has_row && st.column_view(0) < id)
    if (auto s = step(); !s) return s;
  return ok_status();
}

namespace {

// A case_digests.digest value (32 bytes, schema/DIGESTS.md) as 64 hex
// digits; an Error naming the archive and the case otherwise.
Result<std::string> case_digest_hex(std::string_view bytes, const std::string& archive_path, const std::string& id) {
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() != 32)
    return input_error(archive_path + ": case " + id + ", field case_digest: '" + to_hex(data, bytes.size()) +
                       "' is not a SHA-256 digest (32 bytes)");
  return to_hex(data, bytes.size());
}

}  // namespace

Result<Archive::Scan> Archive::scan(ScanFields fields) {
  Scan scan;
  scan.m_archive = this;
  scan.m_fields = fields;
  auto prepare = [&](Scan::Cursor& cursor, std::string_view sql) -> Status {
    auto st = m_db.prepare(sql);
    if (!st) return st.error();
    cursor.st = std::move(*st);
    return cursor.step();
  };
  if (auto s = prepare(scan.m_cases, std::string("SELECT ") + k_case_columns + " FROM " + k_case_tables + " ORDER BY id"); !s) return s.error();
  if (auto s = prepare(scan.m_published,
                       "SELECT case_id, strategy, exit_status, digest FROM published_runs ORDER BY case_id, strategy");
      !s)
    return s.error();
  if (fields != ScanFields::Cases) {
    if (auto s = prepare(scan.m_runs,
                         "SELECT r.case_id, r.strategy, r.actuals, r.exit_status, r.digest, g.failmap_version, "
                         "g.recorded_at, r.observation FROM runs r JOIN recordings g ON g.id = r.recording "
                         "ORDER BY r.case_id, r.strategy");
        !s)
      return s.error();
  }
  if (fields == ScanFields::CasesRunsSeals) {
    if (auto s = prepare(scan.m_seals, "SELECT case_id, salt, commitment FROM repair_salts ORDER BY case_id"); !s)
      return s.error();
    if (auto s = prepare(scan.m_digests, "SELECT case_id, digest FROM case_digests ORDER BY case_id"); !s)
      return s.error();
  }
  return scan;
}

Status Archive::Scan::read(std::vector<ArchivedCase>& batch, std::size_t limit) {
  // The batch's cases are reused, so their strings keep their buffers.
  std::size_t n = 0;
  Status s = ok_status();
  for (; n < limit && m_cases.has_row; ++n) {
    if (n == batch.size()) batch.emplace_back();
    if (s = read_one(batch[n]); !s) break;
  }
  batch.resize(n);
  return s;
}

Status Archive::Scan::read_one(ArchivedCase& out) {
  Archive& a = *m_archive;
  Case& c = out.c;
  // Reused: clear what is appended to (copy_case_columns assigns the rest,
  // decode() the fixtures, decode_seal the seal).
  c.params.clear();
  c.evaluation_group.clear();
  c.published.runs.clear();
  out.runs.clear();
  a.copy_case_columns(m_cases.st, c, out.texts);
  out.decoded = false;
  std::string where = a.m_db.path() + ": case " + c.id;
  if (auto s = m_published.skip_to(c.id); !s) return s;
  while (m_published.at(c.id)) {
    Statement& pr = m_published.st;
    auto k = parse_strategy(pr.column_text(1));
    if (!k) return input_error(where + ", published run: " + k.error().message);
    c.published.runs.push_back(PublishedRun{*k, static_cast<int>(pr.column_int(2)), pr.column_text(3)});
    if (auto s = m_published.step(); !s) return s;
  }
  std::sort(c.published.runs.begin(), c.published.runs.end(),
            [](const PublishedRun& x, const PublishedRun& y) { return x.strategy < y.strategy; });
  if (m_fields != ScanFields::Cases) {
    if (auto s = m_runs.skip_to(c.id); !s) return s;
    while (m_runs.at(c.id)) {
      if (auto s = a.decode_run_row(m_runs.st, 1, c.id, out.runs.emplace_back()); !s) return s;
      if (auto s = m_runs.step(); !s) return s;
    }
  }
  if (m_fields == ScanFields::CasesRunsSeals) {
    if (auto s = m_seals.skip_to(c.id); !s) return s;
    if (!m_seals.at(c.id)) return input_error(a.m_db.path() + ": case " + c.id + " has no repair salt (table repair_salts)");
    if (auto s = a.decode_seal(m_seals.st, 1, c.id, out.seal); !s) return s;
    if (auto s = m_seals.step(); !s) return s;
    out.stored_case_digest.reset();
    if (auto s = m_digests.skip_to(c.id); !s) return s;
    if (m_digests.at(c.id)) {
      auto hex = case_digest_hex(m_digests.st.column_blob(1), a.m_db.path(), c.id);
      if (!hex) return hex.error();
      out.stored_case_digest = std::move(*hex);
      if (auto s = m_digests.step(); !s) return s;
    }
  }
  return m_cases.step();
}

Status Archive::Scan::decode(ArchivedCase& a) const {
  if (a.decoded) return ok_status();
  thread_local DecodeCache cache;  // per thread: the Scan's readers decode in parallel
  if (auto s = decode_case_texts(a.texts, a.c, m_archive->m_db.path() + ": case " + a.c.id, &cache); !s) return s;
  a.decoded = true;
  return ok_status();
}

Result<std::size_t> Archive::read_case_rows(const std::string& after_id, std::size_t limit, CaseFields fields,
                                            const std::function<Case&(std::size_t)>& case_at,
                                            std::vector<CaseRowTexts>* texts) {
  auto st = fields == CaseFields::Record
                ? cached("SELECT " FAILMAP_CASE_COLUMNS ", cases.field_digests, case_texts.field_digests FROM " FAILMAP_CASE_TABLES
                         " WHERE id > ?1 ORDER BY id LIMIT ?2")
            : fields == CaseFields::Runs
                ? cached("SELECT id, mechanism_id, fixture_labels, fixture_values, params FROM cases "
                         "WHERE id > ?1 ORDER BY id LIMIT ?2")
                : cached("SELECT id, mechanism_id, fixture_labels, fixture_values, evaluation_group FROM cases "
                         "WHERE id > ?1 ORDER BY id LIMIT ?2");
  if (!st) return st.error();
  (*st)->bind(1, after_id);
  (*st)->bind(2, static_cast<std::int64_t>(limit));
  std::size_t n = 0;
  for (;; ++n) {
    auto r = (*st)->step();
    if (!r) return r.error();
    if (!*r) break;
    if (texts->size() == n) texts->emplace_back();
    Case& c = case_at(n);
    CaseRowTexts& t = (*texts)[n];
    if (fields == CaseFields::Record) {
      copy_case_columns(**st, c, t);
      t.row_field_digests_null = (*st)->column_is_null(19);
      t.row_field_digests.assign((*st)->column_view(19));
      t.text_field_digests.assign((*st)->column_view(20));
    } else {
      c.id.assign((*st)->column_view(0));
      c.mechanism.assign((*st)->column_view(1));
      t.fixture_labels.assign((*st)->column_view(2));
      t.fixture_values.assign((*st)->column_view(3));
      if (fields == CaseFields::Split) t.evaluation_group.assign((*st)->column_view(4));
      if (fields == CaseFields::Runs) t.params.assign((*st)->column_view(4));
    }
  }
  (*st)->reset();
  return n;
}

Status Archive::decode_case_row(CaseFields fields, const CaseRowTexts& texts, const std::string& archive_path, Case* c,
                                DecodeCache* cache) {
  // Most rows of run --all: no error text is built for them.
  if (fields == CaseFields::Runs) {
    const Mechanism* m = find_mechanism(c->mechanism);
    if (m && single_int_binding_ok(texts.params, *m) &&
        decode_cached_int_fixtures(texts.fixture_labels, texts.fixture_values, *c, cache))
      return ok_status();
  }
  std::string where = archive_path + ": case " + c->id;
  if (fields == CaseFields::Record) return decode_case_texts(texts, *c, where, cache);
  // The binding is not evaluated, but a case whose binding every other
  // command refuses is refused here too.
  if (fields == CaseFields::Runs)
    if (auto s = decode_stored_params(texts.params, *c, where); !s) return s;
  if (fields == CaseFields::Split) {
    c->evaluation_group.clear();
    if (auto s = decode_evaluation_group(texts.evaluation_group, *c, where, cache); !s) return s;
  }
  return decode_fixtures(texts.fixture_labels, texts.fixture_values, *c, where, cache);
}

Result<std::vector<std::string>> Archive::case_ids() {
  auto st = m_db.prepare("SELECT id FROM cases ORDER BY id");
  if (!st) return st.error();
  std::vector<std::string> out;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    out.push_back(st->column_text(0));
  }
  return out;
}

Result<std::vector<CaseSummary>> Archive::list_cases() {
  auto st = m_db.prepare(
      "SELECT c.id, c.mechanism_id, c.variant, t.title, c.tier, c.params, "
      "(SELECT count(*) FROM runs r WHERE r.case_id = c.id), c.evaluation_group FROM cases c CROSS JOIN case_texts t USING (text_id) "
      "ORDER BY c.id");
  if (!st) return st.error();
  std::vector<CaseSummary> out;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    CaseSummary s;
    s.id = st->column_text(0);
    s.mechanism = st->column_text(1);
    s.variant = static_cast<int>(st->column_int(2));
    s.title = st->column_text(3);
    s.tier = st->column_text(4) == "member" ? Tier::Member : Tier::Open;
    s.params = st->column_text(5);
    s.runs = static_cast<int>(st->column_int(6));
    s.evaluation_group = st->column_text(7);
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::map<std::string, std::int64_t>> Archive::case_counts_by_mechanism() {
  auto st = m_db.prepare("SELECT mechanism_id, count(*) FROM cases GROUP BY mechanism_id ORDER BY mechanism_id");
  if (!st) return st.error();
  std::map<std::string, std::int64_t> out;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    out.emplace(st->column_text(0), st->column_int(1));
  }
  return out;
}

Result<std::array<std::int64_t, 3>> Archive::run_counts() {
  auto st = m_db.prepare("SELECT strategy, count(*) FROM runs GROUP BY strategy");
  if (!st) return st.error();
  std::array<std::int64_t, 3> out{};
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) break;
    const std::int64_t k = st->column_int(0);
    if (k < 0 || k > 2) return input_error(m_db.path() + ": runs table: strategy " + std::to_string(k) + " is not 0, 1 or 2");
    out[static_cast<std::size_t>(k)] = st->column_int(1);
  }
  return out;
}

Result<std::int64_t> Archive::case_count() {
  auto st = m_db.prepare("SELECT count(*) FROM cases");
  if (!st) return st.error();
  auto r = st->step();
  if (!r) return r.error();
  return st->column_int(0);
}

Result<std::vector<std::pair<std::string, std::string>>> Archive::orphan_rows() {
  static constexpr const char* k_tables[] = {"case_digests", "import_disagreements", "published_runs", "repair_salts", "runs"};
  std::string sql;
  for (const char* t : k_tables)
    sql += std::string(sql.empty() ? "" : " UNION ") + "SELECT case_id, '" + t + "' FROM " + t +
           " WHERE case_id NOT IN (SELECT id FROM cases)";
  auto st = m_db.prepare(sql + " ORDER BY 1, 2");
  if (!st) return st.error();
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto r = st->step();
    if (!r) return r.error();
    if (!*r) return out;
    out.emplace_back(st->column_text(0), st->column_text(1));
  }
}

Result<bool> Archive::has_cases() {
  auto st = m_db.prepare("SELECT EXISTS (SELECT 1 FROM cases)");
  if (!st) return st.error();
  auto r = st->step();
  if (!r) return r.error();
  return st->column_int(0) != 0;
}

namespace {

constexpr const char* k_insert_run =
    "INSERT OR REPLACE INTO runs(case_id, strategy, actuals, exit_status, digest, recording, observation) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

}  // namespace

Result<std::int64_t> Archive::recording_id(std::string_view failmap_version, std::string_view recorded_at) {
  auto add = cached("INSERT OR IGNORE INTO recordings(failmap_version, recorded_at) VALUES (?1, ?2)");
  if (!add) return add.error();
  (*add)->bind(1, failmap_version);
  (*add)->bind(2, recorded_at);
  if (auto s = (*add)->run(); !s) return s.error();
  auto st = cached("SELECT id FROM recordings WHERE failmap_version = ?1 AND recorded_at = ?2");
  if (!st) return st.error();
  (*st)->bind(1, failmap_version);
  (*st)->bind(2, recorded_at);
  auto r = (*st)->step();
  if (!r) return r.error();
  if (!*r) return input_error(m_db.path() + ": recording vanished while being recorded");
  std::int64_t id = (*st)->column_int(0);
  (*st)->reset();
  return id;
}

Status Archive::record_run(const StoredRun& run) {
  auto fixtures = load_fixtures(run.case_id);
  if (!fixtures) return fixtures.error();
  return record_run(run, *fixtures);
}

Status Archive::record_run(const StoredRun& run, const Case& fixtures) {
  Sha256Bytes digest{};
  if (!parse_sha256_hex(run.digest, &digest))
    return input_error("case " + run.case_id + ", " + std::string(strategy_name(run.strategy)) + " run: digest '" +
                       run.digest + "' is not a SHA-256 hex digest (64 lower-case hex characters)");
  auto recording = recording_id(run.failmap_version, run.recorded_at);
  if (!recording) return recording.error();
  std::optional<RunOutcome> compact = compact_observation(fixtures, run.strategy, run.observation);
  auto st = cached(k_insert_run);
  if (!st) return st.error();
  (*st)->bind(1, run.case_id);
  (*st)->bind(2, static_cast<std::int64_t>(run.strategy));
  std::string actuals;
  if (compact) {
    append_actuals_text(actuals, *compact);
    (*st)->bind(3, actuals);
    (*st)->bind_null(7);
  } else {
    (*st)->bind_null(3);
    (*st)->bind(7, run.observation);
  }
  (*st)->bind(4, std::int64_t{run.exit_status});
  (*st)->bind_blob(5, digest_view(digest));
  (*st)->bind(6, *recording);
  return (*st)->run();
}

void Archive::stored_actuals(const Case& c, const RunOutcome& outcome, std::string_view document, std::string* actuals) {
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
    rows[i] = RunRow{c.id, runs[i].outcome->strategy, runs[i].outcome->exit_status(), actuals[i], runs[i].document,
                     runs[i].digest};
  }
  return record_run_rows(rows, count, recording);
}

namespace {

// Rows per multi-row INSERT of run --all: one statement step writes 32
// cases' runs (or 96 case digests) instead of one each.
constexpr std::size_t k_rows_per_insert = 96;

// "INSERT ... VALUES (?s, ?f, ?f+1, ...), ..." : `rows` rows, each the
// `shared` parameters (bound once per statement) followed by `width` fresh
// ones numbered from `first`.
std::string multi_row_insert(std::string_view head, std::size_t rows, std::string_view shared, int width, int first) {
  std::string sql(head);
  sql += " VALUES ";
  int p = first;
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r ? ", (" : "(";
    sql += shared;
    for (int k = 0; k < width; ++k) {
      if (k) sql += ", ";
      sql += '?';
      sql += std::to_string(p++);
    }
    sql += ')';
  }
  return sql;
}

}  // namespace

Status Archive::record_run_rows(const RunRow* rows, std::size_t count, std::int64_t recording) {
  std::size_t last_size = 0;
  Statement* st = nullptr;
  for (std::size_t begin = 0; begin < count; begin += k_rows_per_insert) {
    std::size_t n = std::min(k_rows_per_insert, count - begin);
    if (n != last_size) {
      auto prepared = cached(multi_row_insert(
          "INSERT OR REPLACE INTO runs(recording, case_id, strategy, exit_status, digest, actuals, observation)", n,
          "?1, ", 6, 2));
      if (!prepared) return prepared.error();
      st = *prepared;
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
    if (auto s = st->run(); !s) return s;
  }
  return ok_status();
}

Status Archive::set_case_digest_rows(const CaseDigestRow* rows, std::size_t count) {
  std::size_t last_size = 0;
  Statement* st = nullptr;
  for (std::size_t begin = 0; begin < count; begin += k_rows_per_insert) {
    std::size_t n = std::min(k_rows_per_insert, count - begin);
    if (n != last_size) {
      auto prepared = cached(multi_row_insert("INSERT OR REPLACE INTO case_digests(case_id, digest)", n, "", 2, 1));
      if (!prepared) return prepared.error();
      st = *prepared;
      last_size = n;
    }
    for (std::size_t i = 0; i < n; ++i) {
      st->bind_static(static_cast<int>(1 + 2 * i), rows[begin + i].case_id);
      st->bind_blob_static(static_cast<int>(2 + 2 * i), digest_view(*rows[begin + i].digest));
    }
    if (auto s = st->run(); !s) return s;
  }
  return ok_status();
}

Status Archive::set_case_digest(const std::string& id, const Sha256Bytes& case_digest) {
  CaseDigestRow row{id, &case_digest};
  return set_case_digest_rows(&row, 1);
}

Status Archive::set_case_digest(const std::string& id, std::string_view case_digest_hex) {
  Sha256Bytes d{};
  if (!parse_sha256_hex(case_digest_hex, &d))
    return input_error("case " + id + ": case digest '" + std::string(case_digest_hex) + "' is not a SHA-256 hex digest");
  return set_case_digest(id, d);
}

Status Archive::set_case_digests(const std::string& id, const CaseDigests& d) {
  auto row = pack_field_digests(d.fields, k_row_digest_fields);
  if (!row) return row.error();
  auto text = pack_field_digests(d.fields, k_text_digest_fields);
  if (!text) return text.error();
  {
    auto st = cached("UPDATE cases SET field_digests = ?2 WHERE id = ?1");
    if (!st) return st.error();
    (*st)->bind(1, id);
    (*st)->bind_blob(2, *row);
    if (auto s = (*st)->run(); !s) return s;
  }
  {
    // Every case sharing the row has the same texts, so the same digests.
    m_insert_memo.text_id = 0;
    auto st = cached("UPDATE case_texts SET field_digests = ?2 WHERE text_id = (SELECT text_id FROM cases WHERE id = ?1)");
    if (!st) return st.error();
    (*st)->bind(1, id);
    (*st)->bind_blob(2, *text);
    if (auto s = (*st)->run(); !s) return s;
  }
  return set_case_digest(id, d.case_digest);
}

Result<std::optional<std::string>> Archive::case_digest(const std::string& id) {
  auto st = cached("SELECT digest FROM case_digests WHERE case_id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, id);
  auto r = (*st)->step();
  if (!r) return r.error();
  if (!*r) return std::optional<std::string>();
  std::string bytes = (*st)->column_blob(0);
  (*st)->reset();
  auto hex = case_digest_hex(bytes, m_db.path(), id);
  if (!hex) return hex.error();
  return std::optional<std::string>(std::move(*hex));
}

namespace {

constexpr const char* k_select_runs =
    "SELECT r.strategy, r.actuals, r.exit_status, r.digest, g.failmap_version, g.recorded_at, r.observation "
    "FROM runs r JOIN recordings g ON g.id = r.recording WHERE r.case_id = ?1 ORDER BY r.strategy";

}  // namespace

Status Archive::decode_run_row(Statement& st, int first, const std::string& case_id, StoredRunRow& row) {
  StoredRun& run = row.run;
  run.case_id = case_id;
  std::int64_t k = st.column_int(first);
  if (k < 0 || k > 2) return input_error(m_db.path() + ": case " + case_id + ", run: unknown strategy " + std::to_string(k));
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

Status rebuild_observation(const Case& fixtures, StoredRunRow& row, const std::string& where) {
  if (!row.actuals) return ok_status();
  auto outcome = outcome_from_actuals_text(fixtures, row.run.strategy, *row.actuals, where);
  if (!outcome) return outcome.error();
  row.run.observation = observation_document(fixtures, *outcome);
  row.actuals.reset();
  return ok_status();
}

Status rebuild_observations(const Case& fixtures, std::vector<StoredRunRow>& rows, const std::string& archive_path) {
  for (StoredRunRow& row : rows) {
    if (!row.actuals) continue;
    std::string where = archive_path + ": case " + fixtures.id + ", " + std::string(strategy_name(row.run.strategy)) +
                        " run actuals";
    if (auto s = rebuild_observation(fixtures, row, where); !s) return s;
  }
  return ok_status();
}

Result<std::vector<StoredRun>> Archive::load_runs(const std::string& case_id) {
  auto st = cached(k_select_runs);
  if (!st) return st.error();
  (*st)->bind(1, case_id);
  std::vector<StoredRunRow> rows;
  for (;;) {
    auto r = (*st)->step();
    if (!r) return r.error();
    if (!*r) break;
    if (auto s = decode_run_row(**st, 0, case_id, rows.emplace_back()); !s) return s.error();
  }
  if (std::any_of(rows.begin(), rows.end(), [](const StoredRunRow& row) { return row.actuals.has_value(); })) {
    auto fixtures = load_fixtures(case_id);
    if (!fixtures) return fixtures.error();
    if (auto s = rebuild_observations(*fixtures, rows, m_db.path()); !s) return s.error();
  }
  std::vector<StoredRun> out;
  out.reserve(rows.size());
  for (StoredRunRow& row : rows) out.push_back(std::move(row.run));
  return out;
}

Result<std::optional<StoredRun>> Archive::load_run(const std::string& case_id, StrategyKind strategy) {
  auto runs = load_runs(case_id);
  if (!runs) return runs.error();
  for (StoredRun& r : *runs)
    if (r.strategy == strategy) return std::optional<StoredRun>(std::move(r));
  return std::optional<StoredRun>();
}

Status Archive::compact_v4_runs() {
  {
    auto st = m_db.prepare(
        "SELECT case_id, strategy, observation, exit_status, digest, failmap_version, recorded_at FROM runs_v4 "
        "ORDER BY case_id, strategy");
    if (!st) return st.error();
    std::optional<Case> fixtures;
    for (;;) {
      auto r = st->step();
      if (!r) return r.error();
      if (!*r) break;
      StoredRun run;
      run.case_id = st->column_text(0);
      auto k = parse_strategy(st->column_text(1));
      if (!k) return input_error("case " + run.case_id + ", run: " + k.error().message);
      run.strategy = *k;
      run.observation = st->column_text(2);
      run.exit_status = static_cast<int>(st->column_int(3));
      run.digest = st->column_text(4);
      run.failmap_version = st->column_text(5);
      run.recorded_at = st->column_text(6);
      if (!fixtures || fixtures->id != run.case_id) {
        auto f = load_fixtures(run.case_id);
        if (!f) return f.error();
        fixtures = std::move(*f);
      }
      if (auto s = record_run(run, *fixtures); !s) return s;
    }
  }
  {
    auto st = m_db.prepare("SELECT id, case_digest FROM cases WHERE case_digest IS NOT NULL ORDER BY id");
    if (!st) return st.error();
    for (;;) {
      auto r = st->step();
      if (!r) return r.error();
      if (!*r) break;
      if (auto s = set_case_digest(st->column_text(0), st->column_text(1)); !s) return s;
    }
  }
  m_statements->clear();  // statements on the tables about to change
  return m_db.exec("DROP TABLE runs_v4; ALTER TABLE cases DROP COLUMN case_digest;");
}

Status Archive::commitments_to_bytes() {
  {
    auto st = m_db.prepare("SELECT case_id, salt, commitment FROM repair_salts ORDER BY case_id");
    if (!st) return st.error();
    auto insert = m_db.prepare("INSERT INTO repair_salts_v8(case_id, salt, commitment) VALUES (?1, ?2, ?3)");
    if (!insert) return insert.error();
    for (;;) {
      auto r = st->step();
      if (!r) return r.error();
      if (!*r) break;
      insert->reset();
      insert->bind(1, st->column_view(0));
      if (st->column_is_null(1)) insert->bind_null(2);
      else insert->bind_blob(2, st->column_view(1));
      Sha256Bytes commitment{};
      if (st->column_is_null(2)) {
        insert->bind_null(3);
      } else if (parse_sha256_hex(st->column_view(2), &commitment)) {
        insert->bind_blob(3, digest_view(commitment));
      } else {
        return input_error(m_db.path() + ": case " + st->column_text(0) + ": repair commitment '" +
                           st->column_text(2) + "' is not 64 lower-case hex");
      }
      if (auto s = insert->run(); !s) return input_error("case " + st->column_text(0) + ": " + s.error().message);
    }
  }
  m_statements->clear();  // statements on the table about to change
  return m_db.exec("DROP TABLE repair_salts; ALTER TABLE repair_salts_v8 RENAME TO repair_salts;");
}

Status Archive::split_case_texts() {
  {
    // Version-6 rows: the case columns are still all in `cases`.
    auto st = m_db.prepare(std::string("SELECT ") + k_case_columns + ", field_digests FROM cases ORDER BY id");
    if (!st) return st.error();
    auto insert = m_db.prepare(
        "INSERT INTO cases_v7(id, mechanism_id, variant, tier, text_id, params, evaluation_group, recorded_runtime, "
        "recorded_at, published_case_digest, fixture_labels, fixture_values, field_digests) "
        "SELECT id, mechanism_id, variant, tier, ?2, params, evaluation_group, recorded_runtime, recorded_at, "
        "published_case_digest, fixture_labels, fixture_values, ?3 FROM cases WHERE id = ?1");
    if (!insert) return insert.error();
    Case c;
    for (;;) {
      auto r = st->step();
      if (!r) return r.error();
      if (!*r) break;
      std::string where = m_db.path() + ": case " + st->column_text(0);
      if (auto s = decode_case_columns(*st, c, where, nullptr); !s) return s;
      // The old object's digests are kept when it has them all, so `verify`
      // names what it named before; otherwise the texts' are computed and
      // the row's stay NULL, as the old column was.
      std::map<std::string, std::string> old;
      bool complete = false;
      if (!st->column_is_null(19)) {
        auto parsed = parse_field_digests(st->column_view(19), where + ", field field_digests");
        if (!parsed) return parsed.error();
        old = std::move(*parsed);
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
      auto text_id = text_id_for(c, *text_digests);
      if (!text_id) return text_id.error();
      insert->bind(1, c.id);
      insert->bind(2, *text_id);
      if (complete) {
        auto row = pack_field_digests(old, k_row_digest_fields);
        if (!row) return input_error(where + ": " + row.error().message);
        insert->bind_blob(3, *row);
      } else {
        insert->bind_null(3);
      }
      if (auto s = insert->run(); !s) return input_error(where + ": " + s.error().message);
    }
  }
  m_statements->clear();  // statements on the table about to be dropped
  return m_db.exec(
      "DROP TABLE cases; ALTER TABLE cases_v7 RENAME TO cases; "
      "CREATE INDEX cases_by_mechanism ON cases(mechanism_id, id);");
}

Result<bool> Archive::has_case(const std::string& id) {
  auto st = cached("SELECT 1 FROM cases WHERE id = ?1");
  if (!st) return st.error();
  (*st)->bind(1, id);
  auto r = (*st)->step();
  if (!r) return r.error();
  (*st)->reset();
  return *r;
}

Status Archive::save_history(const Case& old, const std::string& replaced_by, const std::string& replaced_at) {
  auto st = cached(
      "INSERT INTO case_history(case_id, version, record, replaced_at, replaced_by) "
      "VALUES (?1, (SELECT coalesce(max(version), 0) + 1 FROM case_history WHERE case_id = ?1), ?2, ?3, ?4)");
  if (!st) return st.error();
  (*st)->bind(1, old.id);
  (*st)->bind(2, dump_compact(case_record(old, Tier::Member)));
  (*st)->bind(3, replaced_at);
  (*st)->bind(4, replaced_by);
  return (*st)->run();
}

Result<std::vector<HistoryEntry>> Archive::history(const std::string& id) {
  auto st = cached("SELECT version, record, replaced_at, replaced_by FROM case_history WHERE case_id = ?1 ORDER BY version");
  if (!st) return st.error();
  (*st)->bind(1, id);
  std::vector<HistoryEntry> out;
  for (;;) {
    auto r = (*st)->step();
    if (!r) return r.error();
    if (!*r) break;
    out.push_back(HistoryEntry{id, static_cast<int>((*st)->column_int(0)), (*st)->column_text(1), (*st)->column_text(2),
                               (*st)->column_text(3)});
  }
  (*st)->reset();
  return out;
}

Status Archive::record_disagreement(const Disagreement& d) {
  auto st = cached(
      "INSERT INTO import_disagreements(case_id, source, strategy, check_label, column_name, page_value, computed_value) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!st) return st.error();
  (*st)->bind(1, d.case_id);
  (*st)->bind(2, d.source);
  (*st)->bind(3, strategy_name(d.strategy));
  (*st)->bind(4, d.check);
  (*st)->bind(5, d.column);
  (*st)->bind(6, d.page_value);
  (*st)->bind(7, d.computed_value);
  return (*st)->run();
}

Result<std::vector<Disagreement>> Archive::disagreements(const std::string& id) {
  auto st = cached(
      "SELECT source, strategy, check_label, column_name, page_value, computed_value FROM import_disagreements "
      "WHERE case_id = ?1 ORDER BY rowid");
  if (!st) return st.error();
  (*st)->bind(1, id);
  std::vector<Disagreement> out;
  for (;;) {
    auto r = (*st)->step();
    if (!r) return r.error();
    if (!*r) break;
    auto k = parse_strategy((*st)->column_text(1));
    if (!k) return k.error();
    out.push_back(Disagreement{id, (*st)->column_text(0), *k, (*st)->column_text(2), (*st)->column_text(3),
                               (*st)->column_text(4), (*st)->column_text(5)});
  }
  (*st)->reset();
  return out;
}

}  // namespace failmap
