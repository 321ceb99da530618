// The SQLite archive: exact JSON values, schema versions, transactions.
#include <gtest/gtest.h>

#include "support.h"

#include <sqlite3.h>

#include <filesystem>
#include <map>

#include "core/evaluate.h"
#include "encoding/embedded.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "io/case_file.h"
#include "io/digest.h"
#include "store/archive.h"
#include "store/archive_digests.h"

using namespace failmap;
using namespace failmap::testing_support;

namespace {

std::string temp_db(const char* name) {
  auto p = ::failmap::testing_support::unit_temp_dir() /
           (std::string("failmap-unit-") + name + "-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(p);
  std::filesystem::remove(p.string() + "-wal");
  std::filesystem::remove(p.string() + "-shm");
  return p.string();
}

// The case columns of schema version 1 (001_initial.sql) but case_digest.
constexpr const char* k_v1_case_columns =
    "id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, "
    "why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, published_case_digest";

// Runs `sql` (one or more statements) on `db`; a failure names SQLite's message.
void exec_sql(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
  sqlite3_free(err);
}

// Runs the released migrations schema/001..`version` (as embedded) on `db`.
void apply_migrations_up_to(sqlite3* db, int version) {
  for (const auto& [name, body] : embedded_files())
    if (name.size() >= 4 && name.substr(name.size() - 4) == ".sql" &&
        std::stoi(std::string(name.substr(0, 3))) <= version)
      exec_sql(db, std::string(body));
}

// The first column of the first row of `sql` as text ("NULL" for NULL, ""
// when there is no row).
std::string query_one(Archive& a, const std::string& sql) {
  auto st = a.db().prepare(sql);
  EXPECT_TRUE(st.ok()) << sql;
  std::string out;
  if (auto r = st.ok() ? st->step() : Result<bool>(false); r.ok() && *r)
    out = st->column_is_null(0) ? "NULL" : st->column_text(0);
  return out;
}

}  // namespace

TEST(Store, JsonValuesSurviveExactly) {
  std::string path = temp_db("exact");
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok()) << a.error().message;
  Case c = seed_case();
  // Values a REAL column would change: 4.0 vs 4, -0.0, 1e16, 2^53 + 1, int64 extremes.
  std::vector<Value> tricky = {Value::floating(4.0),
                               Value::integer(4),
                               Value::floating(-0.0),
                               Value::floating(1e16),
                               Value::integer((1LL << 53) + 1),
                               Value::integer(INT64_MAX),
                               Value::integer(INT64_MIN),
                               Value::floating(0.1),
                               Value::floating(5e-324)};
  c.fixtures[0].args = tricky;
  c.fixtures[0].expected = Value::list(tricky);
  ASSERT_TRUE(a->insert_case(c).ok());
  auto back = a->load_case("FA-98921");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->has_value());
  const Fixture& f = (**back).fixtures[0];
  ASSERT_EQ(f.args.size(), tricky.size());
  for (std::size_t i = 0; i < tricky.size(); ++i)
    EXPECT_TRUE(f.args[i].identical(tricky[i])) << python_json(f.args[i]) << " vs " << python_json(tricky[i]);
  EXPECT_EQ(python_json(f.expected),
            "[4.0, 4, -0.0, 1e+16, 9007199254740993, 9223372036854775807, -9223372036854775808, 0.1, 5e-324]");
}

TEST(Store, RejectsNewerSchemaVersion) {
  std::string path = temp_db("newer");
  { ASSERT_TRUE(Archive::open(path, Archive::Mode::Create).ok()); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 1000", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("schema version 1000"), std::string::npos) << a.error().message;
  EXPECT_NE(a.error().message.find("newer failmap"), std::string::npos);
}

TEST(Store, RefusesForeignSqliteDatabase) {
  std::string path = temp_db("foreign");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("not a failmap archive"), std::string::npos);
}

TEST(Store, MigrationsSetUserVersion) {
  std::string path = temp_db("version");
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a->schema_version(), Archive::current_schema_version());
  EXPECT_GE(Archive::current_schema_version(), 1);
}

TEST(Store, TransactionRollsBackUnlessCommitted) {
  std::string path = temp_db("rollback");
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok());
  {
    Transaction tx(a->db());
    ASSERT_TRUE(tx.begin().ok());
    ASSERT_TRUE(a->insert_case(seed_case()).ok());
  }  // no commit
  EXPECT_EQ(*a->case_count(), 0);
}

TEST(Store, JsonArrayElementsSplitsTopLevelOnly) {
  auto e = json_array_elements(R"( [[1, 2], "a,]\"[", {"k": [3]} , -4.5e3] )");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e, (std::vector<std::string_view>{"[1, 2]", R"("a,]\"[")", R"({"k": [3]})", "-4.5e3"}));
  EXPECT_EQ(json_array_elements("[]")->size(), 0u);
  EXPECT_EQ(json_array_elements("[ ]")->size(), 0u);
  for (const char* bad : {"", "[", "]", "[1,]", "[,1]", "[1,,2]", "[[1]", "[1]]", "[\"a]", "1", "{}"})
    EXPECT_FALSE(json_array_elements(bad).has_value()) << bad;
}

// Migration 6 (schema/006_case_fixtures.sql) moves the fixtures rows of a
// version-5 archive into cases.fixture_labels/fixture_values with the exact
// texts the current writer produces, and the case reads back unchanged.
TEST(Store, Migration6MovesFixtureRowsIntoTheCaseRow) {
  std::string current = temp_db("mig6-current");
  std::string path = temp_db("mig6");
  Case c = seed_case();
  c.fixtures[1].expected = Value::floating(0.1);  // text kept verbatim: "0.1"
  c.fixtures[2].label = "tab\there \"quoted\" é";
  {
    auto a = Archive::open(current, Archive::Mode::Create);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->insert_case(c).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto query = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sql;
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
  };
  // A version-5 archive: the released migrations 1-5, then the case's rows
  // as that version kept them (one fixtures row per fixture).
  apply_migrations_up_to(db, 5);
  exec_sql(db,
           "ATTACH '" + current +
               "' AS n;"
               "INSERT INTO mechanisms SELECT * FROM n.mechanisms;"
               "INSERT INTO cases(" +
               std::string(k_v1_case_columns) + ") SELECT " + k_v1_case_columns +
               " FROM n.cases JOIN n.case_texts USING (text_id);"
               "INSERT INTO fixtures SELECT c.id, l.key, l.value, "
               "  CASE l.key WHEN 0 THEN '[[1, 1, 1], 2]' WHEN 1 THEN '[[1, 1], 1]' WHEN 2 THEN '[[1], 2]' "
               "  WHEN 3 THEN '[[], 1]' WHEN 4 THEN '[[3], 1]' WHEN 5 THEN '[[2, 0], 2]' ELSE '[[1, 1, 1], 2]' END, "
               "  CASE l.key WHEN 0 THEN '3' WHEN 1 THEN '0.1' WHEN 2 THEN '1' WHEN 3 THEN '0' WHEN 4 THEN '3' "
               "  WHEN 5 THEN '2' ELSE '3' END "
               "FROM n.cases c, json_each(c.fixture_labels) l;"
               "DETACH n; PRAGMA user_version = 5;");
  sqlite3_close(db);
  const std::string values =
      "[[[[1, 1, 1], 2], 3], [[[1, 1], 1], 0.1], [[[1], 2], 1], [[[], 1], 0], [[[3], 1], 3], [[[2, 0], 2], 2], "
      "[[[1, 1, 1], 2], 3]]";
  const std::string labels =
      "[\"short final batch\", \"all full batches\", \"tab\\there \\\"quoted\\\" é\", \"empty\", "
      "\"oversized batch\", \"mixed remainder\", \"unit batch\"]";
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a->schema_version(), Archive::current_schema_version());
  sqlite3* check = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &check), SQLITE_OK);
  db = check;
  EXPECT_EQ(query("SELECT fixture_values FROM cases"), values);
  EXPECT_EQ(query("SELECT fixture_labels FROM cases"), labels);
  EXPECT_EQ(query("SELECT count(*) FROM sqlite_schema WHERE name = 'fixtures'"), "0");
  sqlite3_close(check);
  auto back = a->load_case("FA-98921");
  ASSERT_TRUE(back.ok() && back->has_value());
  ASSERT_EQ((*back)->fixtures.size(), c.fixtures.size());
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    EXPECT_EQ((*back)->fixtures[i].label, c.fixtures[i].label);
    EXPECT_TRUE(python_equal(Value::list((*back)->fixtures[i].args), Value::list(c.fixtures[i].args)));
    EXPECT_TRUE((*back)->fixtures[i].expected.identical(c.fixtures[i].expected));
  }
}

// Migration 7 (schema/007_case_texts.sql) on a version-6 archive: variants
// with equal texts share one case_texts row; the field digests become the
// same blobs the current writer stores (kept from the old object, so a
// hand edit made before migrating is still named by verify); a case without
// field digests keeps NULL; the cases table is rebuilt with foreign keys off,
// so no case digest or repair salt is lost to ON DELETE CASCADE.
TEST(Store, Migration7SharesTextsAndKeepsDigests) {
  std::string current = temp_db("mig7-current");
  std::string path = temp_db("mig7");
  std::vector<Case> cases = {seed_case()};
  for (auto c : {make_case(*find_mechanism("gradient-accumulation-weighting"), "FA-2", 2, {{"N", Value::integer(2)}}),
                 make_case(*find_mechanism("warmup-off-by-one"), "FA-3", 3, {{"N", Value::integer(7)}})}) {
    ASSERT_TRUE(c.ok());
    cases.push_back(*c);
  }
  std::map<std::string, std::string> old_field_digests;
  {
    auto a = Archive::open(current, Archive::Mode::Create);
    ASSERT_TRUE(a.ok());
    for (const Case& c : cases) {
      auto d = compute_case_digests(c, {});
      ASSERT_TRUE(d.ok());
      ASSERT_TRUE(a->insert_case(c, &*d).ok());
      old_field_digests[c.id] = field_digests_text(*d);
    }
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  apply_migrations_up_to(db, 6);
  std::string cols = std::string(k_v1_case_columns) + ", fixture_labels, fixture_values";
  exec_sql(db, "ATTACH '" + current +
                   "' AS n;"
                   "INSERT INTO mechanisms SELECT * FROM n.mechanisms;"
                   "INSERT INTO cases(" +
                   cols + ") SELECT " + cols +
                   " FROM n.cases JOIN n.case_texts USING (text_id);"
                   "INSERT INTO case_digests SELECT * FROM n.case_digests;"
                   "INSERT INTO repair_salts SELECT case_id, salt, commitment FROM n.repair_salts;"
                   "UPDATE cases SET field_digests = '" +
                   old_field_digests["FA-98921"] +
                   "' WHERE id = 'FA-98921';"
                   "UPDATE cases SET field_digests = '" +
                   old_field_digests["FA-3"] +
                   "', summary = 'edited by hand' "
                   "WHERE id = 'FA-3';"
                   "DETACH n; PRAGMA user_version = 6;");
  sqlite3_close(db);

  auto a = Archive::open(path, Archive::Mode::ReadWrite);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a->schema_version(), Archive::current_schema_version());
  auto one = [&](const std::string& sql) { return query_one(*a, sql); };
  EXPECT_EQ(one("PRAGMA foreign_keys"), "1");
  EXPECT_EQ(one("SELECT count(*) FROM case_texts"), "2");
  EXPECT_EQ(one("SELECT count(DISTINCT text_id) FROM cases WHERE id IN ('FA-98921', 'FA-2')"), "1");
  EXPECT_EQ(one("SELECT count(*) FROM case_digests"), "3");
  EXPECT_EQ(one("SELECT count(*) FROM repair_salts"), "3");
  EXPECT_EQ(one("SELECT count(*) FROM sqlite_schema WHERE name IN ('cases_v7', 'cases_by_mechanism')"), "1");
  EXPECT_EQ(one("SELECT summary FROM cases JOIN case_texts USING (text_id) WHERE id = 'FA-3'"), "edited by hand");
  EXPECT_EQ(one("SELECT field_digests FROM cases WHERE id = 'FA-2'"), "NULL");
  std::string attach = "ATTACH '" + current + "' AS n";
  ASSERT_TRUE(a->db().exec(attach).ok());
  // The blobs the current writer stores for the same cases (FA-3's texts
  // keep the digests of the text before the edit).
  for (const char* id : {"FA-98921", "FA-3"}) {
    std::string q = std::string(
                        "SELECT (SELECT hex(c.field_digests) || hex(t.field_digests) FROM cases c JOIN case_texts t "
                        "USING (text_id) WHERE id = '") +
                    id +
                    "') = (SELECT hex(c.field_digests) || hex(t.field_digests) FROM n.cases c JOIN n.case_texts t "
                    "USING (text_id) WHERE id = '" +
                    id + "')";
    EXPECT_EQ(one(q), "1") << id;
  }
  EXPECT_EQ(one("SELECT count(*) FROM case_digests d JOIN n.case_digests e USING (case_id) WHERE d.digest = e.digest"),
            "3");
  ASSERT_TRUE(a->db().exec("DETACH n").ok());
  for (const Case& c : cases) {
    auto back = a->load_case(c.id);
    ASSERT_TRUE(back.ok() && back->has_value()) << c.id;
    Case want = c;
    if (c.id == "FA-3") want.prose.summary = "edited by hand";
    EXPECT_EQ(dump_compact(case_to_json(**back)), dump_compact(case_to_json(want))) << c.id;
  }
  auto report = verify_cases(*a, {});
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->mismatches.size(), 1u);
  EXPECT_EQ(report->mismatches[0].case_id, "FA-3");
  EXPECT_EQ(report->mismatches[0].field, "summary");
  EXPECT_EQ(report->mismatches[0].recomputed, sha256_hex("\"edited by hand\""));
}

// Migration 8 (schema/008_commitment_bytes.sql) on a version-7 archive: a
// commitment kept as 64 hex characters becomes its 32 bytes, a salt stays
// as it was, and the seal reads back as the same hex; afterwards the table
// takes only 32-byte commitments.
TEST(Store, Migration8KeepsCommitmentsAsBytes) {
  std::string current = temp_db("mig8-current");
  std::string path = temp_db("mig8");
  // FA-98921's published commitment (the seed page's bundle record).
  const std::string commitment = "05fabda2797c21803e584b6ebaff18652d13f1b206c663d08d1280d2aba8fadb";
  auto other = make_case(*find_mechanism("gradient-accumulation-weighting"), "FA-2", 2, {{"N", Value::integer(2)}});
  ASSERT_TRUE(other.ok());
  {
    auto a = Archive::open(current, Archive::Mode::Create);
    ASSERT_TRUE(a.ok());
    RepairSeal published{std::nullopt, commitment};
    ASSERT_TRUE(a->insert_case(seed_case(), nullptr, &published).ok());
    ASSERT_TRUE(a->insert_case(*other).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  apply_migrations_up_to(db, 7);
  // What the code of migration 7 ends with (Archive::split_case_texts).
  exec_sql(db,
           "DROP TABLE cases; ALTER TABLE cases_v7 RENAME TO cases; "
           "CREATE INDEX cases_by_mechanism ON cases(mechanism_id, id);");
  exec_sql(db, "ATTACH '" + current +
                   "' AS n;"
                   "INSERT INTO mechanisms SELECT * FROM n.mechanisms;"
                   "INSERT INTO case_texts SELECT * FROM n.case_texts;"
                   "INSERT INTO cases SELECT * FROM n.cases;"
                   "INSERT INTO repair_salts SELECT case_id, salt, "
                   "CASE WHEN commitment IS NULL THEN NULL ELSE lower(hex(commitment)) END FROM n.repair_salts;"
                   "DETACH n; PRAGMA user_version = 7;");
  sqlite3_close(db);

  auto a = Archive::open(path, Archive::Mode::ReadWrite);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a->schema_version(), 10);  // migrations 8, 9 and 10 applied
  auto one = [&](const std::string& sql) { return query_one(*a, sql); };
  EXPECT_EQ(
      one("SELECT typeof(commitment) || ' ' || lower(hex(commitment)) FROM repair_salts WHERE case_id = 'FA-98921'"),
      "blob " + commitment);
  EXPECT_EQ(one("SELECT salt IS NULL FROM repair_salts WHERE case_id = 'FA-98921'"), "1");
  EXPECT_EQ(one("SELECT typeof(salt) || ' ' || length(salt) || ' ' || (commitment IS NULL) FROM repair_salts "
                "WHERE case_id = 'FA-2'"),
            "blob 32 1");
  EXPECT_EQ(one("SELECT count(*) FROM sqlite_schema WHERE name = 'repair_salts_v8'"), "0");
  auto seal = a->repair_seal("FA-98921");
  ASSERT_TRUE(seal.ok()) << seal.error().message;
  EXPECT_FALSE(seal->salt.has_value());
  EXPECT_EQ(seal->commitment, commitment);
  // The old text form is refused now, and the writer refuses a commitment
  // that is not a digest before SQLite sees it.
  EXPECT_FALSE(
      a->db().exec("UPDATE repair_salts SET commitment = '" + commitment + "' WHERE case_id = 'FA-98921'").ok());
  Status bad = a->set_repair_seal("FA-98921", RepairSeal{std::nullopt, "not-hex"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "case FA-98921: repair commitment 'not-hex' is not a SHA-256 hex digest");
}

// insert_case remembers, within one transaction, the mechanisms it has
// written and the last shared text row; a rolled-back transaction must not
// leave that memory behind (its rows are gone: the next insert would point at
// a text row and mechanism that no longer exist, refused by the foreign keys).
TEST(Store, InsertMemoEndsWithItsTransaction) {
  std::string path = temp_db("memo");
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok());
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  auto c2 = make_case(m, "FA-2", 2, {{"N", Value::integer(2)}});
  auto c3 = make_case(m, "FA-3", 3, {{"N", Value::integer(3)}});
  ASSERT_TRUE(c2.ok() && c3.ok());
  {
    Transaction tx(a->db());
    ASSERT_TRUE(tx.begin().ok());
    ASSERT_TRUE(a->insert_case(seed_case()).ok());
  }  // rolled back
  auto count = [&](const char* sql) { return std::stoll(query_one(*a, sql)); };
  EXPECT_EQ(count("SELECT count(*) FROM case_texts"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM mechanisms"), 0);
  {
    Transaction tx(a->db());
    ASSERT_TRUE(tx.begin().ok());
    Status s = a->insert_case(*c2);
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_TRUE(a->insert_case(*c3).ok());  // shares c2's text row, found in memory
    ASSERT_TRUE(tx.commit().ok());
  }
  EXPECT_EQ(count("SELECT count(*) FROM case_texts"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM mechanisms"), 1);
  EXPECT_EQ(count("SELECT count(DISTINCT text_id) FROM cases"), 1);
  EXPECT_TRUE(a->db().check_foreign_keys().ok());
  // Outside a transaction nothing is remembered; each insert asks SQLite.
  auto c4 = make_case(m, "FA-4", 4, {{"N", Value::integer(4)}});
  ASSERT_TRUE(c4.ok());
  ASSERT_TRUE(a->insert_case(*c4).ok());
  EXPECT_EQ(count("SELECT count(DISTINCT text_id) FROM cases"), 1);
}

// decode_case_row into one Case again and again, as run --all reuses its
// slots: integer fixtures of another shape (more or fewer checks, longer or
// shorter and more deeply nested lists, negative numbers, int64 bounds) are
// parsed into the storage the last case left, and text the integer fast path
// refuses (floats, strings, INT64_MIN, other spacing) goes through the
// general reader; each decode gives exactly the hand-written fixtures.
TEST(Store, DecodeCaseRowReusesTheCaseOfTheCaseBefore) {
  using V = Value;
  auto ints = [](std::initializer_list<std::int64_t> xs) {
    V::List out;
    for (std::int64_t x : xs) out.push_back(V::integer(x));
    return V::list(std::move(out));
  };
  struct Row {
    const char* labels;
    const char* values;
    std::vector<Fixture> want;
  };
  std::vector<Row> rows = {
      {R"(["a", "b"])",
       "[[[[1, 2], 3], 5], [[7], [8, [9]]]]",
       {{"a", {ints({1, 2}), V::integer(3)}, V::integer(5)},
        {"b", {V::integer(7)}, V::list({V::integer(8), ints({9})})}}},
      {R"(["x", "y", "z"])",
       "[[[[-5, 9223372036854775807], [1, [2, 3]]], -1], [[[]], 0], [[], [[], [-4]]]]",
       {{"x", {ints({-5, INT64_MAX}), V::list({V::integer(1), ints({2, 3})})}, V::integer(-1)},
        {"y", {V::list({})}, V::integer(0)},
        {"z", {}, V::list({V::list({}), ints({-4})})}}},
      {R"(["m"])", "[[[-9223372036854775808], 2]]", {{"m", {V::integer(INT64_MIN)}, V::integer(2)}}},
      {R"(["f", "s"])",
       R"([[[1.5, [2.0]], 2], [["s"], "t"]])",
       {{"f", {V::floating(1.5), V::list({V::floating(2.0)})}, V::integer(2)}, {"s", {V::str("s")}, V::str("t")}}},
      {R"(["a", "b"])",
       "[ [[[1, 2], 3], 5],[[7], [8, [9]]] ]",
       {{"a", {ints({1, 2}), V::integer(3)}, V::integer(5)},
        {"b", {V::integer(7)}, V::list({V::integer(8), ints({9})})}}},
      {"[]", "[]", {}},
      {R"(["a", "b"])",
       "[[[[1, 2], 3], 5], [[7], [8, [9]]]]",
       {{"a", {ints({1, 2}), V::integer(3)}, V::integer(5)},
        {"b", {V::integer(7)}, V::list({V::integer(8), ints({9})})}}},
  };
  Case c;
  c.id = "C-1";
  c.mechanism = "gradient-accumulation-weighting";
  Archive::DecodeCache cache;
  for (const Row& row : rows) {
    SCOPED_TRACE(row.values);
    CaseRowTexts texts;
    texts.params = R"({"N": 3})";  // read and checked with the fixtures (the binding rule)
    texts.fixture_labels = row.labels;
    texts.fixture_values = row.values;
    ASSERT_TRUE(Archive::decode_case_row(Archive::CaseFields::Runs, texts, "a.db", &c, &cache).ok());
    ASSERT_EQ(c.fixtures.size(), row.want.size());
    for (std::size_t i = 0; i < row.want.size(); ++i) {
      EXPECT_EQ(c.fixtures[i].label, row.want[i].label);
      EXPECT_TRUE(V::list(c.fixtures[i].args).identical(V::list(row.want[i].args)))
          << python_json(V::list(c.fixtures[i].args));
      EXPECT_TRUE(c.fixtures[i].expected.identical(row.want[i].expected)) << python_json(c.fixtures[i].expected);
    }
  }
  // A count that differs is still named, after a case decoded into the same Case.
  CaseRowTexts bad;
  bad.params = R"({"N": 3})";
  bad.fixture_labels = R"(["a", "b"])";
  bad.fixture_values = "[[[1], 1]]";
  auto s = Archive::decode_case_row(Archive::CaseFields::Runs, bad, "a.db", &c, &cache);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "a.db: case C-1: 2 fixture label(s) but 1 [args, expected] pair(s)");
}

// The cases holding the checks of new ones: by the digest of the stored
// fixture_values text, the new ids themselves left out, in id order.
TEST(Store, CasesWithSameChecksByFixtureValues) {
  auto a = Archive::open(temp_db("same-checks"), Archive::Mode::Create);
  ASSERT_TRUE(a.ok()) << a.error().message;
  const Mechanism* m = find_mechanism("gradient-accumulation-weighting");
  ASSERT_NE(m, nullptr);
  auto make = [&](const char* id, std::int64_t n) {
    auto c = make_case(*m, id, 1, {{"N", Value::integer(n)}});
    EXPECT_TRUE(c.ok()) << c.error().message;
    return *c;
  };
  auto checks = [](const Case& c) { return sha256_bytes(case_insert_texts(c, nullptr).fixture_values); };
  for (const Case& c : {make("FA-3", 1), make("FA-1", 1), make("FA-2", 2), make("V-1", 1)})
    ASSERT_TRUE(a->insert_case(c).ok());
  const Sha256Bytes one = checks(make("V-1", 1)), nine = checks(make("V-9", 9));
  ASSERT_NE(one, nine);
  auto same = a->cases_with_same_checks({{"V-1", one}, {"V-9", nine}});
  ASSERT_TRUE(same.ok()) << same.error().message;
  EXPECT_EQ(*same, (std::map<Sha256Bytes, std::vector<std::string>>{{one, {"FA-1", "FA-3"}}, {nine, {}}}));
}
