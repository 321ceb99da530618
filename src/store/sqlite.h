// Thin RAII wrappers over the SQLite C API (https://sqlite.org/c3ref/intro.html),
// and the per-connection cache of prepared statements (Database::cached).
// Errors come back as Result/Status carrying sqlite3_errmsg(); nothing throws.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace failmap {

/// Asks every Database of this process to stop: from now on Statement::step,
/// Transaction::begin and Transaction::commit fail with the Error
/// "interrupted", so the running command unwinds and its open Transaction
/// rolls back (its destructor still can). Async-signal-safe (one lock-free
/// atomic store): the CLI calls it from its SIGINT/SIGTERM handler.
void request_interrupt() noexcept;
/// Whether request_interrupt() was called.
bool interrupt_requested() noexcept;
/// The Error "interrupted" when an interrupt was requested, else ok; for
/// work that ends without a statement (e.g. export's final rename).
Status check_interrupt();
/// Whether an interrupt stopped some work: a step, begin, commit or
/// check_interrupt() answered "interrupted". False when the request came
/// too late to stop anything (the command completed).
bool interrupt_took_effect() noexcept;

/// How long a command waits for a lock another process holds on the archive
/// before it gives up with the Error "the archive is busy" (Error::Kind::Busy,
/// exit status 3): 60000 ms, or $FAILMAP_BUSY_TIMEOUT seconds (a decimal
/// number from 0 to 86400) when that is set. Read once per process.
/// Connections wait through SQLite's busy handler, and begin_write() and
/// commit retry the cases SQLite answers at once without calling it (a
/// stale read snapshot, a lock another writer is about to upgrade), so the
/// wait is the whole time.
int busy_timeout_ms();

/// The Error of a lock not had within busy_timeout_ms(), naming `path` and
/// what waited ("write lock", "read").
Error archive_busy(const std::string& path, std::string_view what);

/// A prepared statement. Bind parameters are 1-based as in SQLite.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt, &sqlite3_finalize) {}
  void bind(int i, std::string_view text);
  void bind(int i, std::int64_t v);
  void bind_null(int i);
  /// Binds raw bytes as a BLOB (copied).
  void bind_blob(int i, std::string_view bytes);
  /// Binds text / a BLOB without copying (SQLITE_STATIC): the bytes must stay
  /// unchanged until the statement is reset or the binding replaced.
  void bind_static(int i, std::string_view text);
  void bind_blob_static(int i, std::string_view bytes);
  /// Steps once: true when a row is available, false when done; an Error on
  /// failure (constraint, busy after the timeout, I/O) or when an interrupt
  /// was requested (request_interrupt: "interrupted", nothing stepped).
  Result<bool> step();
  /// Steps through the remaining rows, calling `row` for each (it reads
  /// this statement's columns); ok after the last row. Stops at the first
  /// Error, of a step (as step()) or returned by `row`, and returns it.
  Status for_each_row(const std::function<Status()>& row);
  /// Runs to completion and resets for reuse.
  Status run();
  void reset();
  std::string column_text(int i) const;
  /// The column's text without a copy; valid until the next step or reset.
  std::string_view column_view(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt.get(), i));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt.get(), i)))
             : std::string_view();
  }
  std::int64_t column_int(int i) const;
  bool column_is_null(int i) const;
  /// The column's raw bytes (a BLOB as stored; empty for NULL).
  std::string column_blob(int i) const;
  /// The underlying statement, for zero-copy column reads on hot paths.
  sqlite3_stmt* handle() const { return m_stmt.get(); }

 private:
  sqlite3* m_db = nullptr;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> m_stmt{nullptr, &sqlite3_finalize};
};

/// The error of a command that writes, given an archive it may not write
/// (file or folder permissions): names `path` and the commands that work.
Error read_only_archive(const std::string& path);

/// An open database connection.
class Database {
 public:
  /// How to open: read-only, read-write (file must exist), or create it.
  enum class Mode { ReadOnly, ReadWrite, Create };
  /// Opens `path`. Errors name the path: missing file (for ReadOnly and
  /// ReadWrite), permission, or "not a database" on corrupt files.
  static Result<Database> open(const std::string& path, Mode mode);

  Result<Statement> prepare(std::string_view sql);
  /// The prepared statement for `sql`, prepared once per connection and
  /// reset (bindings cleared) on every call: no per-row statement
  /// preparation. The pointer stays valid until clear_cached() or the
  /// Database's end (a move keeps it).
  Result<Statement*> cached(std::string_view sql);
  /// Finalizes every cached statement (before a migration changes the tables
  /// they were prepared on).
  void clear_cached() { m_statements->clear(); }
  /// Executes one or more statements without results.
  Status exec(std::string_view sql);
  /// BEGIN IMMEDIATE, waiting up to busy_timeout_ms() for the write lock:
  /// SQLite's busy handler waits for most locks, and the cases it answers at
  /// once are retried every 10 to 50 ms until the deadline. Before each try
  /// the connection's read snapshot is released (release_reads), so a
  /// stale snapshot is never upgraded: the transaction reads the archive as
  /// the last committed writer left it. An Error of Kind::Busy when the
  /// lock could not be had in the time; "interrupted" on request_interrupt.
  Status begin_write();
  /// COMMIT, retrying as begin_write does while SQLite answers busy (in
  /// rollback-journal mode a commit waits for readers to finish).
  Status commit();
  /// Ends the implicit read transaction that a cached() statement stepped
  /// but not reset keeps open (outside an explicit transaction only; a
  /// no-op inside one): resets every cached statement that is mid-step. A
  /// statement of cached() is thereby reset by the next begin_write() too,
  /// so no caller may hold one mid-iteration across it.
  void release_reads();
  sqlite3* handle() const { return m_db.get(); }
  const std::string& path() const { return m_path; }
  /// PRAGMA foreign_key_check: an Error naming the first row whose parent
  /// is missing (table, rowid, parent table), ok when there is none.
  Status check_foreign_keys();
  /// Sets PRAGMA journal_mode to `mode` ("delete", "wal") and returns the
  /// mode in effect afterwards: the old one when SQLite cannot change it (it
  /// leaves WAL only as the sole connection, and never inside a transaction).
  Result<std::string> set_journal_mode(std::string_view mode);
  /// How many Transactions have begun on this connection. What a caller
  /// learnt of the archive inside one transaction holds while this is
  /// unchanged (no other writer meanwhile: BEGIN IMMEDIATE); a rollback ends
  /// it, and the next begin changes the serial.
  std::uint64_t transaction_serial() const { return m_transaction_serial; }

 private:
  friend class Transaction;
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> m_db{nullptr, &sqlite3_close_v2};
  /// After m_db: finalized before the connection closes.
  std::unique_ptr<std::map<std::string, Statement, std::less<>>> m_statements =
      std::make_unique<std::map<std::string, Statement, std::less<>>>();
  std::string m_path;
  std::uint64_t m_transaction_serial = 0;
};

/// While begun, the connection writes with a rollback journal instead of
/// WAL, for a transaction whose pages are nearly all new (an import into an
/// archive without cases, the first recording of runs): WAL writes each page
/// twice, to the log at the commit and into the database at the checkpoint;
/// a rollback journal keeps only the pages that existed, so each new page is
/// written once. SQLite leaves WAL only as the sole connection and outside a
/// transaction: otherwise begin() leaves WAL in place, and nothing changes.
/// end() or the destructor returns to WAL; declare it before the
/// Transaction it serves, so that the transaction ends first. A kill
/// meanwhile leaves a hot journal, which the next open rolls back
/// (tests/e2e/crash_safety.sh).
class RollbackJournal {
 public:
  explicit RollbackJournal(Database& db) : m_db(db) {}
  RollbackJournal(const RollbackJournal&) = delete;
  RollbackJournal& operator=(const RollbackJournal&) = delete;
  ~RollbackJournal() { end(); }
  Status begin();
  /// Back to WAL. Should that fail (another connection opened meanwhile),
  /// the archive is as valid in rollback-journal mode, and the next
  /// read-write open sets WAL (Archive::migrate).
  void end();

 private:
  Database& m_db;
  bool m_left_wal = false;
};

/// A transaction that rolls back unless commit() succeeds.
/// Mode::Write (Database::begin_write, BEGIN IMMEDIATE): a second writer
/// waits up to busy_timeout_ms(), then fails with Kind::Busy, nothing
/// written. Mode::ReadSnapshot (BEGIN DEFERRED), never
/// committed: every statement stepped while it is begun reads the archive
/// as of the first of them, whatever other connections commit meanwhile, so
/// a command that reads the archive twice (split's partition pass, then its
/// writing pass) sees the same cases both times; writers go on meanwhile in
/// WAL mode, and in rollback-journal mode their commits wait for it.
class Transaction {
 public:
  enum class Mode { Write, ReadSnapshot };
  explicit Transaction(Database& db, Mode mode = Mode::Write) : m_db(&db), m_mode(mode) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  /// BEGIN; an Error when SQLite refuses it (busy, a transaction already
  /// open) or an interrupt was requested.
  Status begin();
  Status commit();
  /// Rolls back now (the destructor's job, for a caller that must act after
  /// it); a no-op when not begun or already ended.
  void rollback();

 private:
  Database* m_db;
  Mode m_mode;
  bool m_open = false;
};

}  // namespace failmap
