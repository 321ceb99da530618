// The SQLite archive: exact JSON values, schema versions, transactions.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>

#include "core/evaluate.h"
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
  auto a = Archive::open(path, Archive::Mode::ReadWrite);
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
