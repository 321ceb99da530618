// Published pages (src/io/page.h): inputs found by bench/fuzz.sh (fuzz_page)
// kept as regressions, and the per-line cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "encoding/limits.h"
#include "io/page.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string seed_page() { return slurp(fs::path(FAILMAP_SOURCE_DIR) / "tests/data/seeds/000_b91ddc69b4d265ed.txt"); }

// The seed page with line `n` (1-based) replaced.
std::string with_line(std::string page, std::size_t n, const std::string& text) {
  std::size_t begin = 0;
  for (std::size_t i = 1; i < n; ++i) begin = page.find('\n', begin) + 1;
  std::size_t end = page.find('\n', begin);
  return page.replace(begin, end - begin, text);
}

bool has(const std::vector<std::string>& errors, const std::string& e) {
  return std::find(errors.begin(), errors.end(), e) != errors.end();
}

}  // namespace

TEST(Page, SeedReads) {
  PageReading r;
  std::vector<std::string> errors;
  ASSERT_TRUE(read_page(seed_page(), "seed.txt", &r, &errors)) << errors.at(0);
  EXPECT_EQ(r.record.id, "FA-98921");
  EXPECT_EQ(r.record.variant, 1);
  EXPECT_TRUE(r.disagreements.empty());
}

// fuzz_page, first 60 s pass: "… · case ded tail',solve(…" — the case number
// was accumulated digit by digit over the whole rest of the line before its
// length was checked: signed int overflow (UBSan). Now refused as not 01..99.
TEST(Page, FuzzCaseNumberOfAnyLengthIsRefusedWithoutOverflow) {
  const std::string page =
      slurp(fs::path(FAILMAP_SOURCE_DIR) / "tests/data/fuzz/fuzz_page/crash_case_number_overflow.txt");
  PageReading r;
  std::vector<std::string> errors;
  EXPECT_FALSE(read_page(page, "crash.txt", &r, &errors));
  const std::string line2 =
      page.substr(page.find('\n') + 1, page.find('\n', page.find('\n') + 1) - page.find('\n') - 1);
  ASSERT_EQ(line2.substr(0, 13), "P \xC2\xB7 case ded");
  EXPECT_TRUE(has(errors, "crash.txt:2: case number '" + line2.substr(10) + "' is not 01..99"));

  const std::string title = "The final short batch is discarded from accumulation \xC2\xB7 case ";
  for (const char* nn : {"99999999999", "2147483648", "1a", "100", "00", "", "+1"}) {
    errors.clear();
    EXPECT_FALSE(read_page(with_line(seed_page(), 2, title + nn), "p.txt", &r, &errors)) << nn;
    EXPECT_TRUE(has(errors, std::string("p.txt:2: case number '") + nn + "' is not 01..99")) << nn;
  }
}

TEST(Page, LineLongerThanTheCapIsRefusedNamingTheLine) {
  PageReading r;
  std::vector<std::string> errors;
  // Line 5 (the root cause) one byte beyond 1 MiB: one error, nothing else read.
  EXPECT_FALSE(read_page(with_line(seed_page(), 5, std::string(k_max_line_bytes + 1, 'r')), "long.txt", &r, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "long.txt:5: line longer than the 1 MiB limit (docs/README.md, \"Limits on untrusted input\")");
  // Exactly 1 MiB is within the cap; a '\r' before the '\n' counts toward it, as in JSON Lines.
  errors.clear();
  ASSERT_TRUE(read_page(with_line(seed_page(), 5, std::string(k_max_line_bytes, 'r')), "cap.txt", &r, &errors))
      << errors.at(0);
  EXPECT_EQ(r.record.prose.root_cause.size(), k_max_line_bytes);
  errors.clear();
  EXPECT_FALSE(
      read_page(with_line(seed_page(), 5, std::string(k_max_line_bytes, 'r') + "\r"), "crlf.txt", &r, &errors));
  EXPECT_EQ(errors,
            std::vector<std::string>{
                "crlf.txt:5: line longer than the 1 MiB limit (docs/README.md, \"Limits on untrusted input\")"});
}

// A page carries what render_page writes, no more: a one-line field holding a
// control character or a bidirectional control is refused on reading, with
// the field and the code point, as render_page refuses to write it (fuzz_page
// found a page that read but could not be rendered again).
TEST(Page, ReaderRefusesWhatTheWriterRefuses) {
  const std::string page =
      slurp(fs::path(FAILMAP_SOURCE_DIR) / "tests/data/fuzz/fuzz_page/crash_control_in_summary.txt");
  PageReading r;
  std::vector<std::string> errors;
  EXPECT_FALSE(read_page(page, "crash.txt", &r, &errors));
  EXPECT_EQ(errors, std::vector<std::string>{"crash.txt:3: field 'summary': holds U+0007, a control character, which a "
                                             "page would carry raw to its reader's terminal"});
  errors.clear();
  EXPECT_FALSE(read_page(with_line(seed_page(), 5, "abc \xE2\x80\xAE cba"), "rlo.txt", &r, &errors));
  EXPECT_EQ(errors, std::vector<std::string>{"rlo.txt:5: field 'root_cause': holds U+202E, a bidirectional control, "
                                             "which would reorder what a reader of the page sees"});
  // The same case as a case file imports, and the page writer refuses it with the same words.
  ASSERT_TRUE(read_page(seed_page(), "seed.txt", &r, &errors));
  Case c = r.record;
  c.prose.summary += " \x07";
  auto rendered = render_page(c, c.tier);
  ASSERT_FALSE(rendered.ok());
  EXPECT_NE(
      rendered.error().message.find("field 'summary': holds U+0007, a control character, which a page would carry "
                                    "raw to its reader's terminal"),
      std::string::npos)
      << rendered.error().message;
  // A tab is text.
  errors.clear();
  EXPECT_TRUE(read_page(with_line(seed_page(), 5, "a\tb"), "tab.txt", &r, &errors)) << errors.at(0);
}

// fuzz_page, first 60 s pass: a '\r' (followed by NULs) inside the case-contract line read without error,
// but render_page refuses a prose line break, so the case could be imported and never exported as a page.
// A '\r' is now allowed only as part of a CRLF line end.
TEST(Page, FuzzCarriageReturnInsideALineIsRefused) {
  const std::string page = slurp(fs::path(FAILMAP_SOURCE_DIR) / "tests/data/fuzz/fuzz_page/crash_cr_inside_line.txt");
  PageReading r;
  std::vector<std::string> errors;
  EXPECT_FALSE(read_page(page, "crash.txt", &r, &errors));
  EXPECT_EQ(errors, std::vector<std::string>{
                        "crash.txt:10: carriage return inside the line (a page's lines end with '\\n' or '\\r\\n')"});

  // The seed with CRLF line ends reads to the same case; a lone '\r' in line 5 does not.
  std::string crlf;
  for (char c : seed_page()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  PageReading seed, with_crlf;
  errors.clear();
  ASSERT_TRUE(read_page(seed_page(), "seed.txt", &seed, &errors));
  ASSERT_TRUE(read_page(crlf, "crlf.txt", &with_crlf, &errors)) << errors.at(0);
  EXPECT_EQ(with_crlf.record.prose.root_cause, seed.record.prose.root_cause);
  EXPECT_EQ(with_crlf.restored_sources, seed.restored_sources);
  EXPECT_FALSE(read_page(with_line(seed_page(), 5, "broken\rpath"), "cr.txt", &r, &errors));
  EXPECT_EQ(errors.back(), "cr.txt:5: carriage return inside the line (a page's lines end with '\\n' or '\\r\\n')");
}
