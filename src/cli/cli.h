// The command-line interface: the only layer that prints or picks an exit
// status; the library returns Result<T> and never prints. Exit status: 0 success, 1 checks failed /
// mismatch / leakage found, 2 usage or input error.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace failmap::cli {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_mismatch = 1;
inline constexpr int k_exit_input = 2;

/// State shared by every command: global options and the exit status the
/// chosen command's callback sets.
struct Context {
  std::string db_path;  ///< --db, else $FAILMAP_DB, else ./failmap.db
  bool quiet = false;   ///< --quiet: no progress or chatter on stderr
  int exit_status = k_exit_ok;
};

/// One row of the command table (every subcommand is one): name, one-line summary,
/// and the function that registers its options and callback on `sub`.
struct Command {
  const char* name;
  const char* summary;
  void (*setup)(CLI::App& sub, Context& ctx);
};

/// Every command, in --help order. Defined in commands.cc.
const std::vector<Command>& commands();

/// Parses argv, runs the command, returns the process exit status. Catches
/// every exception as a last resort ("failmap: error: …", status 2).
int main(int argc, char** argv);

/// Runs a long command (import, run --all, digest regenerate, export,
/// instantiate) with SIGINT and SIGTERM caught: the first asks the library to
/// stop (request_interrupt in store/sqlite.h), so the command fails and its
/// transaction rolls back; a second one ends the process at once (the
/// default action). When the signal stopped the command (interrupt_took_effect),
/// its error is not printed (report() stays silent) but one line instead,
/// "failmap: interrupted (SIGINT): UNCHANGED", and the status is 128 + the
/// signal's number (130 for SIGINT, 143 for SIGTERM). A command the signal
/// came too late to stop keeps its own output and status.
int run_interruptible(const std::function<int()>& command, const std::string& unchanged);
/// What run_interruptible says of a command that writes in one transaction.
inline constexpr const char* k_unchanged = "the archive is unchanged (its transaction was rolled back)";

/// `text` as a terminal may show it: control characters (C0 except tab,
/// DEL, and the C1 range U+0080-U+009F) become "\xNN" or "\u00NN", so a
/// case id or a file name holding an escape sequence cannot drive the
/// terminal from an error message; U+FEFF (a byte-order mark, invisible)
/// becomes "\ufeff" and each byte that is not part of well-formed UTF-8
/// "\xNN", so what failmap prints is always valid UTF-8. Other characters
/// pass as they are. `keep_newlines`: '\n' passes too (a multi-line report).
std::string terminal_safe(std::string_view text, bool keep_newlines = false);

/// Prints "failmap: error: MESSAGE" (terminal_safe) on stderr and returns the exit status
/// matching the error's kind; prints nothing once an interrupt stopped the
/// command (run_interruptible says so instead).
int report(const Error& e);
/// The most problems report_all prints one per line: a generated file
/// wrong on every line would otherwise give a line per line of it.
inline constexpr std::size_t k_max_reported_problems = 100;
/// Prints each message as an error line (terminal_safe), then returns
/// k_exit_input. Past k_max_reported_problems, the rest are counted in one
/// line: "... and N more problem(s), not shown (the first 100 are above)".
int report_all(const std::vector<std::string>& messages);

/// A refused import or instantiate: the one problem on one line, ending
/// "(nothing was imported)"; several problems one per line, then `summary`
/// ("N problem(s); nothing was imported"). Returns the exit status (2, or
/// that of `summary` when there are none).
int report_refused_import(const std::vector<std::string>& problems, const Error& summary);

}  // namespace failmap::cli
