// The site export's pages (src/io/site.h): escaping, the case page's
// sections, the archive pages. The browser checks are tests/e2e/site_browser.sh.
#include <gtest/gtest.h>

#include "io/page.h"
#include "io/site.h"
#include "support.h"

using namespace failmap;
using failmap::testing_support::seed_case_from_file;

namespace {

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

SiteCaseSummary summary_of(const Case& c) {
  return SiteCaseSummary{c.id, c.mechanism, c.title, c.variant, c.tier, c.evaluation_group, {}};
}

}  // namespace

TEST(Site, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(site_html_escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;");
  // Tab and line feed stay; C0, DEL and C1 (U+009B, UTF-8 C2 9B) are shown as failmap's terminal output shows them.
  EXPECT_EQ(site_html_escape("a\tb\nc\x1b[31m\x07\x7f\xc2\x9b \xc2\xa0"), "a\tb\nc\\x1b[31m\\x07\\x7f\\u009b \xc2\xa0");
  EXPECT_EQ(site_html_escape("\xe2\x86\x97 &amp;"), "\xe2\x86\x97 &amp;amp;");
}

TEST(Site, CaseStringsAreNeverMarkup) {
  Case c = seed_case_from_file();
  c.title = "<script>alert(1)</script>";
  c.prose.summary = "\"><img src=x onerror=alert(2)>";
  c.prose.scope = "a & b";
  // The open build has no member tier: its open page escapes the same strings.
  auto page = site_case_page(c, k_build_has_repairs ? Tier::Member : Tier::Open);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(count(*page, "<script"), 0u);
  EXPECT_EQ(count(*page, "<img"), 0u);
  EXPECT_EQ(count(*page, "<h1>&lt;script&gt;alert(1)&lt;/script&gt; <span class=\"variant\">· case 01</span></h1>"),
            1u);
  EXPECT_EQ(count(*page, "<p class=\"summary\">&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</p>"), 1u);
  EXPECT_EQ(count(*page, "<p>a &amp; b</p>"), 1u);
  // The <title> holds the title too, escaped.
  EXPECT_EQ(count(*page, "<title>FA-98921 · &lt;script&gt;alert(1)&lt;/script&gt; · Failure Map archive</title>"), 1u);
}

TEST(Site, CasePageHoldsThePublishedSectionsWithIndentedSources) {
  FAILMAP_NEEDS_REPAIRS();  // the member page is the control
  Case c = seed_case_from_file();
  auto open = site_case_page(c, Tier::Open);
  auto member = site_case_page(c, Tier::Member);
  ASSERT_TRUE(open.ok() && member.ok());
  // The source keeps its indentation (the text page strips it).
  EXPECT_EQ(count(*open, "\n    return sum(size for size in batch_sizes if size == target)\n"), 1u);
  EXPECT_EQ(count(*open, "<h2>1 / The failure</h2>"), 1u);
  EXPECT_EQ(count(*open, "<h2>2 / The unsuccessful fix</h2>"), 1u);
  EXPECT_EQ(count(*open, "3 / The repair"), 0u);
  EXPECT_EQ(count(*open, "HELD IN THE MEMBER ARCHIVE"), 1u);
  EXPECT_EQ(count(*member, "<h2>3 / The repair</h2>"), 1u);
  EXPECT_EQ(count(*member, "HELD IN THE MEMBER ARCHIVE"), 0u);
  // The published digests, verbatim, in page order.
  std::size_t broken = open->find("d3953127d7246b718e7fc63ed5d9348feb644afacb10dd47339aaba00537157f");
  std::size_t unsuccessful = open->find("eac8bbea99346135842b0a4326ec3050bbf6ad2680b39197782399f93181ad0e");
  std::size_t case_digest =
      open->find("Case digest / <code>74a424fc52e6faa167222a2d71e2934c886258981317e46222f3c35933e4df56");
  ASSERT_NE(case_digest, std::string::npos);
  EXPECT_LT(broken, unsuccessful);
  EXPECT_LT(unsuccessful, case_digest);
  // The table: seven rows per section, the seed page's first row.
  EXPECT_EQ(count(*open,
                  "<tr class=\"failed\"><td>short final batch</td><td><code>0</code></td><td><code>3</code></td>"
                  "<td class=\"outcome\">Failed</td></tr>"),
            1u);
  EXPECT_EQ(count(*open, "<tr class="), 14u);
}

TEST(Site, ArchivePagesNameEveryMechanismAndAreDeterministic) {
  Case c = seed_case_from_file();
  std::vector<SiteCaseSummary> cases = {summary_of(c)};
  cases[0].runs.push_back(SiteRunOutcome{StrategyKind::Broken, true, 1, 3, 7});
  cases[0].runs.push_back(SiteRunOutcome{StrategyKind::Unsuccessful, false, 0, 0, 0});
  auto a = site_archive_pages(cases, Tier::Open);
  auto b = site_archive_pages(cases, Tier::Open);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  std::vector<std::string> names;
  for (const auto& [name, bytes] : *a) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"index.html", "mechanism-gradient-accumulation-weighting.html",
                                             "style.css", "units.html"}));
  const std::string& index = (*a)[0].second;
  EXPECT_EQ(count(index, "<a href=\"case-FA-98921.html\">FA-98921</a>"), 1u);
  EXPECT_EQ(
      count(index, "<li class=\"failed\">failure 3/7 passed</li><li class=\"none\">unsuccessful fix not recorded</li>"),
      1u);
  EXPECT_EQ(count(index,
                  "1 case(s) of 1 mechanism(s) in 1 <a href=\"units.html\">split unit(s)</a>, by their access tier 1 "
                  "open and 0 member."),
            1u);
}

TEST(Site, AnEmptyArchiveHasAnIndexAndNoMechanismPages) {
  auto pages = site_archive_pages({}, Tier::Member);
  ASSERT_TRUE(pages.ok()) << pages.error().message;
  ASSERT_EQ(pages->size(), 3u);  // index.html, style.css, units.html
  EXPECT_EQ(count((*pages)[0].second, "0 case(s) of 0 mechanism(s) in 0 <a href=\"units.html\">split unit(s)</a>"), 1u);
}

TEST(SiteLeaderboard, ModelNamesThatLookAlikeShowApart) {
  EXPECT_EQ(site_visible_name("model-A"), "model-A");
  EXPECT_EQ(site_visible_name("model-A "), "model-A\\u0020");
  EXPECT_EQ(site_visible_name(" model A"), "\\u0020model A");
  EXPECT_EQ(site_visible_name("model-A\xe2\x80\x8b"), "model-A\\u200b");  // U+200B zero-width space
  EXPECT_EQ(site_visible_name("\xef\xbb\xbfmodel"), "\\ufeffmodel");      // U+FEFF
  EXPECT_EQ(site_visible_name("a\xc2\xa0"
                              "b"),
            "a\\u00a0b");  // U+00A0 inside
  EXPECT_EQ(site_visible_name("a\tb\nc"), "a\\u0009b\\u000ac");
  EXPECT_EQ(site_visible_name("\xe2\x80\xae"
                              "evil"),
            "\\u202eevil");                                    // right-to-left override
  EXPECT_EQ(site_visible_name("caf\xc3\xa9"), "caf\xc3\xa9");  // a visible letter stays
  EXPECT_EQ(site_visible_name("bad\xff"), "bad\\ufffd");
}

TEST(SiteLeaderboard, ReadsWhatASummaryGivesAndShowsDashesForTheRest) {
  const std::string without =
      R"({"format":"failmap-grade-summary","format_version":1,"held_out":0,"split":null,"models":{"m":{"cases":1,)"
      R"("predictions":4,"resolved":1,"partial":2,"unresolved":1,"errors":0,"held_out_resolved":0,)"
      R"("pass_at_k":{"1":0.25,"2":0.5},"mechanisms":{"eval-drop-last":{"cases":1,"predictions":4,"resolved":1,)"
      R"("partial":2,"errors":0,"pass_at_k":{"1":0.25}}}}}})";
  auto plain = read_grading_scores(without, "s.json");
  ASSERT_TRUE(plain) << plain.error().message;
  ASSERT_EQ(plain->size(), 1u);
  const ModelScore& s = plain->front();
  EXPECT_EQ(s.split, "");
  EXPECT_EQ(s.predictions, 4u);
  ASSERT_EQ(s.pass_at_k.size(), 2u);
  EXPECT_EQ(s.pass_at_k[1], (std::pair<std::uint64_t, double>{2, 0.5}));
  EXPECT_TRUE(s.pass_at_k_interval.empty());
  EXPECT_FALSE(s.coverage);
  ASSERT_EQ(s.mechanisms.size(), 1u);
  EXPECT_EQ(s.mechanisms[0].pass_at_1, 0.25);
  EXPECT_FALSE(s.mechanisms[0].interval);

  std::string with = without;
  with.replace(with.find(R"("pass_at_k":{"1":0.25,"2":0.5})"), 30,
               R"("pass_at_k":{"1":0.25,"2":0.5},"pass_at_k_interval":{"1":[0.0625,0.5],"2":{"low":0.25,"high":0.75}},)"
               R"("coverage":{"attempted":1,"cases":18})");
  auto rich = read_grading_scores(with, "s.json");
  ASSERT_TRUE(rich) << rich.error().message;
  EXPECT_EQ(rich->front().pass_at_k_interval.at(1).low, 0.0625);
  EXPECT_EQ(rich->front().pass_at_k_interval.at(2).high, 0.75);
  EXPECT_EQ(rich->front().coverage, (std::pair<std::uint64_t, std::uint64_t>{1, 18}));

  auto page = site_archive_pages({}, Tier::Open, *rich);
  ASSERT_TRUE(page) << page.error().message;
  const std::string& board = page->front().first == "index.html" ? (*page)[1].second : page->front().second;
  EXPECT_EQ(count(board, "<td>[0.062, 0.500]</td>"), 1u);
  EXPECT_EQ(count(board, "<td>1 of 18</td>"), 1u);
  auto bare = site_archive_pages({}, Tier::Open, *plain);
  ASSERT_TRUE(bare);
  EXPECT_EQ(count((*bare)[1].second, "<td>0.250</td><td>-</td>"), 1u) << "no interval: a dash";
}

TEST(SiteLeaderboard, RefusesValuesItCannotShowTruthfully) {
  const std::string base =
      R"({"format":"failmap-grade-summary","models":{"m":{"cases":1,"predictions":2,"resolved":1,"partial":0,)"
      R"("unresolved":1,"errors":0,"pass_at_k":{"1":0.5}}}})";
  auto with = [&](std::string_view from, std::string_view to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return read_grading_scores(s, "s.json");
  };
  ASSERT_TRUE(read_grading_scores(base, "s.json"));
  auto over = with(R"("1":0.5)", R"("1":1.5)");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().message,
            "s.json: field 'models.m.pass_at_k.1': expected a number from 0 to 1, got the number 1.5");
  auto sum = with(R"("errors":0)", R"("errors":1)");
  ASSERT_FALSE(sum);
  EXPECT_EQ(sum.error().message,
            "s.json: field 'models.m.predictions': 2, but resolved, partial, unresolved and errors add up to 3");
  EXPECT_FALSE(with(R"("pass_at_k":{"1":0.5})", R"("pass_at_k":{"1":0.5},"pass_at_k_interval":{"1":[0.6,0.4]})"));
  EXPECT_FALSE(with(R"("pass_at_k":{"1":0.5})", R"("pass_at_k":{"01":0.5})"));
  EXPECT_FALSE(with(R"("pass_at_k":{"1":0.5})", R"("pass_at_k":{"1":0.5},"coverage":{"attempted":3,"cases":2})"));
  EXPECT_FALSE(with(R"("failmap-grade-summary")", R"("failmap-bundle")"));
}
