// A progress bar for long commands (import, run --all, ...), drawn on stderr
// only when stderr is a terminal and --quiet is off; never anything when
// stderr is a file or pipe, so scripted output stays byte-identical. No
// colour is used (NO_COLOR is therefore honoured trivially).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/cli.h"
#include "core/progress.h"

namespace failmap::cli {

/// One line of the bar, without "\r" or clearing: for a known total
/// "LABEL [#######.............]  1,234/10,000  12%  5,678/s  ETA 0:02",
/// for an unknown total "LABEL 1,234  5,678/s". `elapsed_s` is the time since
/// the start in seconds; the rate and ETA are omitted until it is > 0.
std::string format_progress_line(const std::string& label, std::size_t done, std::optional<std::size_t> total,
                                 double elapsed_s);

/// "1,234,567": an integer with thousands separators.
std::string group_thousands(std::size_t n);

/// Draws the bar on `out` at most every 100 ms. Cheap when disabled: advance()
/// only adds. The line is cleared on finish() and on destruction.
class Progress {
 public:
  /// Whether the command also streams lines to stdout: then the bar is drawn
  /// only when stdout is not the same terminal (it would be torn by them).
  enum class Stdout { Quiet, Streams };
  /// Enabled when `ctx.quiet` is off and stderr is a terminal (and, with
  /// Stdout::Streams, stdout is not); draws on stderr.
  Progress(const Context& ctx, std::string label, std::optional<std::size_t> total = std::nullopt,
           Stdout stdout_use = Stdout::Quiet);
  /// Explicit form for tests: draws on `out` when `enabled`.
  Progress(std::FILE* out, bool enabled, std::string label, std::optional<std::size_t> total);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  /// Counts `n` more items done; redraws when 100 ms have passed.
  void advance(std::size_t n = 1);
  /// Sets or changes the total (e.g. once it is known).
  void set_total(std::size_t total) { m_total = total; }
  /// A ProgressFn for library calls that advances this bar.
  ProgressFn callback() {
    return [this](std::size_t n) { advance(n); };
  }
  /// Clears the line; further calls draw nothing.
  void finish();
  bool enabled() const { return m_enabled; }
  std::size_t done() const { return m_done; }

 private:
  void draw();
  std::FILE* m_out;
  bool m_enabled;
  std::string m_label;
  std::optional<std::size_t> m_total;
  std::size_t m_done = 0;
  std::size_t m_next_check = 0;
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_last_draw;
};

}  // namespace failmap::cli
