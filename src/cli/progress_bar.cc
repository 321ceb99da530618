#include "cli/progress_bar.h"

#include <cmath>

#include "cli/common.h"

namespace failmap::cli {

namespace {

constexpr int k_bar_width = 24;
constexpr auto k_redraw_interval = std::chrono::milliseconds(100);

std::string format_duration(double seconds) {
  auto s = static_cast<long long>(std::llround(seconds));
  long long h = s / 3600, m = (s / 60) % 60, sec = s % 60;
  char buf[32];
  if (h > 0) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, sec);
  else std::snprintf(buf, sizeof buf, "%lld:%02lld", m, sec);
  return buf;
}

}  // namespace

std::string group_thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_progress_line(const std::string& label, std::size_t done, std::optional<std::size_t> total,
                                 double elapsed_s) {
  std::string out = label;
  double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  if (total) {
    std::size_t t = *total;
    std::size_t shown = std::min(done, t);
    int filled = t ? static_cast<int>(shown * k_bar_width / t) : k_bar_width;
    out += " [" + std::string(static_cast<std::size_t>(filled), '#') +
           std::string(static_cast<std::size_t>(k_bar_width - filled), '.') + "]  " + group_thousands(done) + "/" +
           group_thousands(t) + "  " + std::to_string(t ? shown * 100 / t : 100) + "%";
    if (elapsed_s > 0) {
      out += "  " + group_thousands(static_cast<std::size_t>(rate)) + "/s";
      if (rate > 0) out += "  ETA " + format_duration(static_cast<double>(t - shown) / rate);
    }
  } else {
    out += " " + group_thousands(done);
    if (elapsed_s > 0) out += "  " + group_thousands(static_cast<std::size_t>(rate)) + "/s";
  }
  return out;
}

Progress::Progress(const Context& ctx, std::string label, std::optional<std::size_t> total, Stdout stdout_use)
    : Progress(stderr, !ctx.quiet && stderr_is_tty() && (stdout_use == Stdout::Quiet || !stdout_is_tty()),
               std::move(label), total) {}

Progress::Progress(std::FILE* out, bool enabled, std::string label, std::optional<std::size_t> total)
    : m_out(out), m_enabled(enabled), m_label(std::move(label)), m_total(total) {
  m_start = std::chrono::steady_clock::now();
  m_last_draw = m_start - k_redraw_interval;  // the first advance draws at once
}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t n) {
  m_done += n;
  // Reading the clock is cheap but not free: look at most every 64 items.
  if (!m_enabled || m_done < m_next_check) return;
  m_next_check = m_done + 64;
  auto now = std::chrono::steady_clock::now();
  if (now - m_last_draw < k_redraw_interval) return;
  m_last_draw = now;
  draw();
}

void Progress::draw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  std::string line = format_progress_line(m_label, m_done, m_total, elapsed);
  // "\r" returns to the line start, "\x1b[K" erases what a longer line left.
  std::fprintf(m_out, "\r%s\x1b[K", line.c_str());
  std::fflush(m_out);
  m_drawn = true;
}

void Progress::finish() {
  if (m_enabled && m_drawn) {
    std::fputs("\r\x1b[K", m_out);
    std::fflush(m_out);
  }
  m_enabled = false;
}

}  // namespace failmap::cli
