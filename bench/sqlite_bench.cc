// What SQLite itself can write of a recorded `run --all` (bench/run_bench.sh):
// the target for recording is to come close to what SQLite itself can write.
//
//   failmap_sqlite_bench RECORDED UNRECORDED
//
// Reads every row `failmap run --all` wrote into RECORDED (its runs and
// case_digests tables) into memory, then writes exactly those rows into
// UNRECORDED (a copy of the same archive before the run, which it changes)
// through SQLite's C API alone, the way failmap records: one BEGIN IMMEDIATE
// transaction, the recording row, then every run and case digest by a
// prepared single-row INSERT (bind, step, reset), with the settings failmap
// records with (synchronous=NORMAL, foreign keys off, a 128 MiB page cache,
// a rollback journal into an archive without runs). No evaluation, no
// digests, no JSON: the time is SQLite's. Prints "sqlite_alone ROWS WALL_S
// CPU_S" (CPU: user+sys of this process). Exit 2 with a message on any
// SQLite error.
#include <sqlite3.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(sqlite3* db, const char* what) {
  std::fprintf(stderr, "failmap_sqlite_bench: %s: %s\n", what, db ? sqlite3_errmsg(db) : "cannot open");
  std::exit(2);
}

void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) die(db, sql);
}

sqlite3_stmt* prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) die(db, sql);
  return st;
}

std::string column(sqlite3_stmt* st, int i) {
  const void* p = sqlite3_column_blob(st, i);
  return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st, i)))
           : std::string();
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Run {
  std::string case_id, actuals, digest;
  int strategy, exit_status;
};
struct CaseDigest {
  std::string case_id, digest;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: failmap_sqlite_bench RECORDED UNRECORDED\n");
    return 2;
  }
  std::vector<Run> runs;
  std::vector<CaseDigest> digests;
  sqlite3* src = nullptr;
  if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) die(src, argv[1]);
  sqlite3_stmt* st =
      prepare(src, "SELECT case_id, strategy, actuals, exit_status, digest FROM runs ORDER BY case_id, strategy");
  while (sqlite3_step(st) == SQLITE_ROW)
    runs.push_back(
        Run{column(st, 0), column(st, 2), column(st, 4), sqlite3_column_int(st, 1), sqlite3_column_int(st, 3)});
  sqlite3_finalize(st);
  st = prepare(src, "SELECT case_id, digest FROM case_digests ORDER BY case_id");
  while (sqlite3_step(st) == SQLITE_ROW) digests.push_back(CaseDigest{column(st, 0), column(st, 1)});
  sqlite3_finalize(st);
  sqlite3_close(src);

  sqlite3* db = nullptr;
  if (sqlite3_open(argv[2], &db) != SQLITE_OK) die(db, argv[2]);
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  exec(db, "PRAGMA synchronous=NORMAL");
  exec(db, "PRAGMA foreign_keys=OFF");
  exec(db, "PRAGMA cache_size=-131072");
  exec(db, "PRAGMA journal_mode=DELETE");
  exec(db, "BEGIN IMMEDIATE");
  exec(db, "INSERT INTO recordings (failmap_version, recorded_at) VALUES ('bench', '2026-12-01T00:00:00Z')");
  const sqlite3_int64 recording = sqlite3_last_insert_rowid(db);
  sqlite3_stmt* ins =
      prepare(db,
              "INSERT OR REPLACE INTO runs (case_id, strategy, actuals, exit_status, digest, recording) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  for (const Run& r : runs) {
    sqlite3_bind_text(ins, 1, r.case_id.data(), static_cast<int>(r.case_id.size()), SQLITE_STATIC);
    sqlite3_bind_int(ins, 2, r.strategy);
    sqlite3_bind_text(ins, 3, r.actuals.data(), static_cast<int>(r.actuals.size()), SQLITE_STATIC);
    sqlite3_bind_int(ins, 4, r.exit_status);
    sqlite3_bind_blob(ins, 5, r.digest.data(), static_cast<int>(r.digest.size()), SQLITE_STATIC);
    sqlite3_bind_int64(ins, 6, recording);
    if (sqlite3_step(ins) != SQLITE_DONE) die(db, "INSERT INTO runs");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  ins = prepare(db, "INSERT OR REPLACE INTO case_digests (case_id, digest) VALUES (?1, ?2)");
  for (const CaseDigest& d : digests) {
    sqlite3_bind_text(ins, 1, d.case_id.data(), static_cast<int>(d.case_id.size()), SQLITE_STATIC);
    sqlite3_bind_blob(ins, 2, d.digest.data(), static_cast<int>(d.digest.size()), SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) die(db, "INSERT INTO case_digests");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  exec(db, "COMMIT");
  exec(db, "PRAGMA journal_mode=WAL");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - c0;
  sqlite3_close(db);
  std::printf("sqlite_alone %zu %.3f %.3f\n", runs.size(), wall, cpu);
  return 0;
}
