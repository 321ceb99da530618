// libFuzzer target: a grading folder's summary.json as `export --format site
// --results` reads it for the leaderboard (src/io/leaderboard.h), written by
// whoever sends the folder. Invariants: every rate read is in [0, 1] and every
// interval ordered; the leaderboard page renders, and no model name reaches it
// unescaped (no '<' but the page's own markup: a name holding '<' shows as &lt;).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/leaderboard.h"
#include "io/site.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scores = failmap::read_grading_scores(text, "summary.json");
  if (!scores) return 0;
  for (const failmap::ModelScore& s : *scores) {
    for (const auto& [k, v] : s.pass_at_k)
      if (!(v >= 0 && v <= 1) || k < 1) __builtin_trap();
    for (const auto& [k, i] : s.pass_at_k_interval)
      if (!(i.low >= 0 && i.low <= i.high && i.high <= 1)) __builtin_trap();
    if (s.coverage && s.coverage->first > s.coverage->second) __builtin_trap();
    std::string shown = failmap::site_html_escape(failmap::site_visible_name(s.model));
    if (shown.find('<') != std::string::npos || shown.find('"') != std::string::npos) __builtin_trap();
  }
  auto pages = failmap::site_archive_pages({}, failmap::Tier::Open, *scores);
  (void)pages;  // an Error (one model twice on a split) is an answer too
  return 0;
}
