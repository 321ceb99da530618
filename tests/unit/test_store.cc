// The SQLite archive: exact JSON values, schema versions, transactions.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>

#include "core/evaluate.h"
#include "io/json.h"
#include "io/pyjson.h"
#include "store/archive.h"

using namespace failmap;

namespace {

std::string temp_db(const char* name) {
  auto p = std::filesystem::temp_directory_path() / (std::string("failmap-unit-") + name + "-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(p);
  std::filesystem::remove(p.string() + "-wal");
  std::filesystem::remove(p.string() + "-shm");
  return p.string();
}

Case seed_case() {
  auto c = make_case(*find_mechanism("gradient-accumulation-weighting"), "FA-98921", 1, {{"N", Value::integer(1)}});
  EXPECT_TRUE(c.ok());
  return *c;
}

}  // namespace

TEST(Store, JsonValuesSurviveExactly) {
  std::string path = temp_db("exact");
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok()) << a.error().message;
  Case c = seed_case();
  // Values a REAL column would change: 4.0 vs 4, -0.0, 1e16, 2^53 + 1, int64 extremes.
  std::vector<Value> tricky = {Value::floating(4.0), Value::integer(4), Value::floating(-0.0), Value::floating(1e16),
                               Value::integer((1LL << 53) + 1), Value::integer(INT64_MAX), Value::integer(INT64_MIN),
                               Value::floating(0.1), Value::floating(5e-324)};
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
  std::string path = temp_db("mig6");
  Case c = seed_case();
  c.fixtures[1].expected = Value::floating(0.1);  // text kept verbatim: "0.1"
  c.fixtures[2].label = "tab\there \"quoted\" é";
  {
    auto a = Archive::open(path, Archive::Mode::Create);
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
  const std::string labels = query("SELECT fixture_labels FROM cases");
  const std::string values = query("SELECT fixture_values FROM cases");
  EXPECT_EQ(values,
            "[[[[1, 1, 1], 2], 3], [[[1, 1], 1], 0.1], [[[1], 2], 1], [[[], 1], 0], [[[3], 1], 3], [[[2, 0], 2], 2], "
            "[[[1, 1, 1], 2], 3]]");
  EXPECT_EQ(labels,
            "[\"short final batch\", \"all full batches\", \"tab\\there \\\"quoted\\\" é\", \"empty\", "
            "\"oversized batch\", \"mixed remainder\", \"unit batch\"]");
  // Back to version 5: one fixtures row per fixture, as that version kept them.
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE fixtures (case_id TEXT NOT NULL, position INTEGER NOT NULL, label TEXT NOT NULL, "
                         "args TEXT NOT NULL, expected TEXT NOT NULL, PRIMARY KEY (case_id, position)) STRICT, WITHOUT ROWID;"
                         "INSERT INTO fixtures SELECT c.id, l.key, l.value, "
                         "  CASE l.key WHEN 0 THEN '[[1, 1, 1], 2]' WHEN 1 THEN '[[1, 1], 1]' WHEN 2 THEN '[[1], 2]' "
                         "  WHEN 3 THEN '[[], 1]' WHEN 4 THEN '[[3], 1]' WHEN 5 THEN '[[2, 0], 2]' ELSE '[[1, 1, 1], 2]' END, "
                         "  CASE l.key WHEN 0 THEN '3' WHEN 1 THEN '0.1' WHEN 2 THEN '1' WHEN 3 THEN '0' WHEN 4 THEN '3' "
                         "  WHEN 5 THEN '2' ELSE '3' END "
                         "FROM cases c, json_each(c.fixture_labels) l;"
                         "ALTER TABLE cases DROP COLUMN fixture_labels; ALTER TABLE cases DROP COLUMN fixture_values;"
                         "PRAGMA user_version = 5;",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_close(db);
  auto a = Archive::open(path, Archive::Mode::Create);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a->schema_version(), 6);
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
