#include "store/sqlite.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace failmap {

namespace {
std::atomic<bool> g_interrupt{false};
std::atomic<bool> g_interrupt_took_effect{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt must be async-signal-safe");
Error interrupted() {
  g_interrupt_took_effect.store(true);
  return input_error("interrupted");
}
}  // namespace

int busy_timeout_ms() {
  static const int ms = [] {
    const char* env = std::getenv("FAILMAP_BUSY_TIMEOUT");
    if (!env || !*env) return 60000;
    double seconds = -1;
    const char* end = env + std::char_traits<char>::length(env);
    auto [stop, ec] = std::from_chars(env, end, seconds, std::chars_format::fixed);
    if (ec != std::errc() || stop != end || !(seconds >= 0 && seconds <= 86400)) return 60000;
    return static_cast<int>(seconds * 1000 + 0.5);
  }();
  return ms;
}

Error archive_busy(const std::string& path, std::string_view what) {
  const int ms = busy_timeout_ms();
  std::string waited = std::to_string(ms / 1000);
  if (ms % 1000) waited += "." + std::to_string(ms % 1000 + 1000).substr(1);
  while (waited.find('.') != std::string::npos && (waited.back() == '0' || waited.back() == '.')) waited.pop_back();
  return busy_error(path + ": the archive is busy: another process held its " + std::string(what) + " lock for " +
                    waited + " s (the wait, $FAILMAP_BUSY_TIMEOUT); nothing of this command was written, run it again");
}

void request_interrupt() noexcept { g_interrupt.store(true, std::memory_order_relaxed); }
bool interrupt_requested() noexcept { return g_interrupt.load(std::memory_order_relaxed); }
bool interrupt_took_effect() noexcept { return g_interrupt_took_effect.load(); }
Status check_interrupt() { return interrupt_requested() ? Status(interrupted()) : ok_status(); }

void Statement::bind(int i, std::string_view text) {
  sqlite3_bind_text(m_stmt.get(), i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}
void Statement::bind(int i, std::int64_t v) { sqlite3_bind_int64(m_stmt.get(), i, v); }
void Statement::bind_null(int i) { sqlite3_bind_null(m_stmt.get(), i); }
void Statement::bind_blob(int i, std::string_view bytes) {
  sqlite3_bind_blob(m_stmt.get(), i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

void Statement::bind_static(int i, std::string_view text) {
  sqlite3_bind_text(m_stmt.get(), i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}
void Statement::bind_blob_static(int i, std::string_view bytes) {
  sqlite3_bind_blob(m_stmt.get(), i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
}

Result<bool> Statement::step() {
  if (interrupt_requested()) {
    sqlite3_reset(m_stmt.get());
    return interrupted();
  }
  int rc = sqlite3_step(m_stmt.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string msg = sqlite3_errmsg(m_db);
  sqlite3_reset(m_stmt.get());
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    (void)msg;
    return archive_busy(std::string(sqlite3_db_filename(m_db, "main") ? sqlite3_db_filename(m_db, "main") : "archive"),
                        "write");
  }
  return input_error("archive error: " + msg);
}

Result<Statement*> Database::cached(std::string_view sql) {
  auto it = m_statements->find(sql);
  if (it == m_statements->end()) {
    FAILMAP_TRY_ASSIGN(auto st, prepare(sql));
    it = m_statements->emplace(std::string(sql), std::move(st)).first;
  }
  it->second.reset();
  return &it->second;
}

Status Statement::for_each_row(const std::function<Status()>& row) {
  for (;;) {
    FAILMAP_TRY_ASSIGN(auto r, step());
    if (!r) return ok_status();
    FAILMAP_TRY(row());
  }
}

Status Statement::run() {
  FAILMAP_TRY(for_each_row([] { return ok_status(); }));
  reset();
  return ok_status();
}

void Statement::reset() {
  sqlite3_reset(m_stmt.get());
  sqlite3_clear_bindings(m_stmt.get());
}

std::string Statement::column_text(int i) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt.get(), i));
  int n = sqlite3_column_bytes(m_stmt.get(), i);
  return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
}
std::int64_t Statement::column_int(int i) const { return sqlite3_column_int64(m_stmt.get(), i); }
bool Statement::column_is_null(int i) const { return sqlite3_column_type(m_stmt.get(), i) == SQLITE_NULL; }
std::string Statement::column_blob(int i) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt.get(), i));
  int n = sqlite3_column_bytes(m_stmt.get(), i);
  return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
}

Error read_only_archive(const std::string& path) {
  return input_error(path +
                     ": the archive is read-only (file or folder permissions); this command writes. "
                     "Read-only commands (list, show, verify, export, run --no-record) work on it");
}

Result<Database> Database::open(const std::string& path, Mode mode) {
  if (path.empty()) return input_error("--db: expected the path of an archive file, got an empty string");
  if (mode != Mode::Create && !std::filesystem::exists(path))
    return input_error(path + ": no archive here (create one with `failmap import cases/`, or pass --db PATH)");
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
      !std::filesystem::is_directory(status))
    return input_error(path + ": not a regular file, so not an archive (pass --db FILE)");
  if (std::filesystem::is_directory(path, ec))
    return input_error(path + ": is a folder, not an archive file (pass --db FILE, e.g. --db " +
                       (std::filesystem::path(path) / "failmap.db").string() + ")");
  int flags = SQLITE_OPEN_NOMUTEX;
  flags |= mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (mode == Mode::Create) flags |= SQLITE_OPEN_CREATE;
  // A WAL archive needs its -shm file even to read. When neither the file nor
  // its folder is writable and no -wal file exists, no writer can be active
  // (it could not create one), so the file is read as immutable
  // (https://sqlite.org/uri.html#uriimmutable): no locks, no -shm.
  std::string name = path;
  if (mode == Mode::ReadOnly) {
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    bool writable = access(path.c_str(), W_OK) == 0 && access(dir.empty() ? "." : dir.c_str(), W_OK) == 0;
    // A write killed in rollback-journal mode (RollbackJournal) leaves a hot
    // journal that a read-only connection cannot roll back: SQLite refuses
    // to read. Where the files are writable, a read-write connection rolls
    // it back first (as the sqlite3 shell does on open), restoring the
    // committed archive; nothing else is written.
    if (writable && std::filesystem::exists(path + "-journal", ec)) {
      sqlite3* rw = nullptr;
      if (sqlite3_open_v2(path.c_str(), &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(rw, 10000);
        (void)sqlite3_exec(rw, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
      }
      sqlite3_close_v2(rw);
    }
    if (!writable && !std::filesystem::exists(path + "-wal")) {
      flags |= SQLITE_OPEN_URI;
      std::string escaped;
      for (char c : std::filesystem::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#') {
          char buf[4];
          std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
          escaped += buf;
        } else {
          escaped += c;
        }
      }
      name = "file:" + escaped + "?mode=ro&immutable=1";
    }
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Database db;
  db.m_db.reset(raw);
  db.m_path = path;
  if (rc != SQLITE_OK)
    return input_error(path + ": cannot open archive: " + (raw ? sqlite3_errmsg(raw) : "out of memory"));
  sqlite3_busy_timeout(raw, busy_timeout_ms());
  sqlite3_extended_result_codes(raw, 1);
  // SQLite opens a file it may not write read-only without saying so; every
  // write would then fail on its own ("attempt to write a readonly
  // database", once per case of an import).
  if (mode != Mode::ReadOnly && sqlite3_db_readonly(raw, "main") == 1) return read_only_archive(path);
  return db;
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(m_db.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return input_error(m_path + ": " + sqlite3_errmsg(m_db.get()));
  return Statement(m_db.get(), stmt);
}

Status Database::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(m_db.get(), s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(m_db.get());
    sqlite3_free(err);
    if ((rc & 0xff) == SQLITE_BUSY) return archive_busy(m_path, "write");
    return input_error(m_path + ": " + msg);
  }
  return ok_status();
}

Status Database::check_foreign_keys() {
  FAILMAP_TRY_ASSIGN(auto st, prepare("PRAGMA foreign_key_check"));
  FAILMAP_TRY_ASSIGN(auto r, st.step());
  if (!r) return ok_status();
  return input_error(m_path + ": table " + st.column_text(0) + ", row " + std::to_string(st.column_int(1)) +
                     ": no row in " + st.column_text(2) + " for its foreign key");
}

void Database::release_reads() {
  if (!sqlite3_get_autocommit(m_db.get())) return;  // inside an explicit transaction: its reads are its own
  for (auto& [sql, st] : *m_statements)
    if (sqlite3_stmt_busy(st.handle())) sqlite3_reset(st.handle());
}

namespace {

// Retries `attempt` (an SQLite call answering a result code) while it
// answers SQLITE_BUSY, until busy_timeout_ms() have passed since the first
// try; `before` runs before every try. SQLite's busy handler already waited
// inside a try when it could; this loop covers the answers it gives at once.
template <class Attempt, class Before>
int retry_busy(Attempt attempt, Before before) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(busy_timeout_ms());
  int pause_ms = 10;
  for (;;) {
    before();
    int rc = attempt();
    if ((rc & 0xff) != SQLITE_BUSY || clock::now() >= deadline || interrupt_requested()) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min(pause_ms * 2, 50);
  }
}

}  // namespace

Status Database::begin_write() {
  if (interrupt_requested()) return interrupted();
  char* err = nullptr;
  int rc = retry_busy(
      [&] {
        sqlite3_free(err);
        err = nullptr;
        return sqlite3_exec(m_db.get(), "BEGIN IMMEDIATE", nullptr, nullptr, &err);
      },
      [&] { release_reads(); });
  std::string msg = err ? err : sqlite3_errmsg(m_db.get());
  sqlite3_free(err);
  if (rc == SQLITE_OK) return ok_status();
  if (interrupt_requested()) return interrupted();
  if ((rc & 0xff) == SQLITE_BUSY) return archive_busy(m_path, "write");
  return input_error(m_path + ": " + msg);
}

Status Database::commit() {
  char* err = nullptr;
  int rc = retry_busy(
      [&] {
        sqlite3_free(err);
        err = nullptr;
        return sqlite3_exec(m_db.get(), "COMMIT", nullptr, nullptr, &err);
      },
      [] {});
  std::string msg = err ? err : sqlite3_errmsg(m_db.get());
  sqlite3_free(err);
  if (rc == SQLITE_OK) return ok_status();
  if ((rc & 0xff) == SQLITE_BUSY) return archive_busy(m_path, "write");
  return input_error(m_path + ": " + msg);
}

Transaction::~Transaction() {
  if (m_open) (void)m_db->exec("ROLLBACK");
}

Status Transaction::begin() {
  if (interrupt_requested()) return interrupted();
  auto s = m_mode == Mode::Write ? m_db->begin_write() : m_db->exec("BEGIN DEFERRED");
  ++m_db->m_transaction_serial;
  if (s) m_open = true;
  return s;
}

Result<std::string> Database::set_journal_mode(std::string_view mode) {
  FAILMAP_TRY_ASSIGN(auto st, prepare("PRAGMA journal_mode = " + std::string(mode)));
  // Stepped directly, not by Statement::step: after an interrupt the
  // import's clean-up must still return the archive to WAL.
  int rc = sqlite3_step(st.handle());
  if ((rc & 0xff) == SQLITE_BUSY) {
    // Another connection holds a lock the change needs (a writer in
    // rollback-journal mode: SQLite then answers at once, without the busy
    // timeout, to avoid a deadlock). The mode stays; report it.
    st.reset();
    FAILMAP_TRY_ASSIGN(auto query, prepare("PRAGMA journal_mode"));
    rc = sqlite3_step(query.handle());
    if (rc != SQLITE_ROW) return input_error("archive error: " + std::string(sqlite3_errmsg(handle())));
    return query.column_text(0);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return input_error("archive error: " + std::string(sqlite3_errmsg(handle())));
  std::string now = rc == SQLITE_ROW ? st.column_text(0) : std::string();
  st.reset();
  return now;
}

Status RollbackJournal::begin() {
  FAILMAP_TRY_ASSIGN(auto mode, m_db.set_journal_mode("delete"));
  m_left_wal = mode == "delete";
  return ok_status();
}

void RollbackJournal::end() {
  if (m_left_wal) {
    // A statement stopped between two rows (an interrupted import) still
    // holds a read, under which SQLite keeps the journal mode: end them all.
    sqlite3* db = m_db.handle();
    for (sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr); st; st = sqlite3_next_stmt(db, st))
      if (sqlite3_stmt_busy(st)) sqlite3_reset(st);
    (void)m_db.set_journal_mode("wal");
  }
  m_left_wal = false;
}

void Transaction::rollback() {
  if (m_open) (void)m_db->exec("ROLLBACK");
  m_open = false;
}

Status Transaction::commit() {
  if (interrupt_requested()) return interrupted();  // stays open: the destructor rolls back
  auto s = m_db->commit();
  if (s) m_open = false;
  return s;
}

}  // namespace failmap
