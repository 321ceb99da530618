// libFuzzer target: the published-page reader (src/io/page.h read_page) on
// arbitrary text. read_page needs no archive: it splits the page, parses the
// header, prose, sections, check lines and tables, evaluates the binding and
// the fixture templates with the safe expression evaluator (core/expr.h),
// builds the case and runs its strategies to recompute the tables.
// Properties beyond "no crash, no sanitizer report, no hang":
//   - read_page returns true exactly when it reported no error;
//   - a page read without disagreements renders again (render_page at its
//     tier), and that rendering reads back to the same case record with no
//     disagreement and renders to the same bytes (a fixed point).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/json.h"
#include "io/bundle.h"
#include "io/page.h"

namespace {

std::string record_text(const failmap::Case& c) {
  return failmap::dump_compact(failmap::case_record(c, failmap::Tier::Member));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  failmap::PageReading reading;
  std::vector<std::string> errors;
  bool ok = failmap::read_page(text, "fuzz.txt", &reading, &errors);
  if (ok != errors.empty()) __builtin_trap();
  if (!ok || !reading.disagreements.empty()) return 0;
  const failmap::Case& c = reading.record;
  auto page = failmap::render_page(c, c.tier);
  if (!page) __builtin_trap();
  failmap::PageReading again;
  if (!failmap::read_page(*page, "rendered.txt", &again, &errors)) __builtin_trap();
  if (!again.disagreements.empty() || record_text(again.record) != record_text(c)) __builtin_trap();
  auto page2 = failmap::render_page(again.record, again.record.tier);
  if (!page2 || *page2 != *page) __builtin_trap();
  return 0;
}
