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
  EXPECT_EQ(count(*page, "<h1>&lt;script&gt;alert(1)&lt;/script&gt; <span class=\"variant\">· case 01</span></h1>"), 1u);
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
  std::size_t case_digest = open->find("Case digest / <code>74a424fc52e6faa167222a2d71e2934c886258981317e46222f3c35933e4df56");
  ASSERT_NE(case_digest, std::string::npos);
  EXPECT_LT(broken, unsuccessful);
  EXPECT_LT(unsuccessful, case_digest);
  // The table: seven rows per section, the seed page's first row.
  EXPECT_EQ(count(*open, "<tr class=\"failed\"><td>short final batch</td><td><code>0</code></td><td><code>3</code></td>"
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
  EXPECT_EQ(count(index, "<li class=\"failed\">failure 3/7 passed</li><li class=\"none\">unsuccessful fix not recorded</li>"), 1u);
  EXPECT_EQ(count(index, "1 case(s) of 1 mechanism(s) in 1 <a href=\"units.html\">split unit(s)</a>, by their access tier 1 open and 0 member."), 1u);
}

TEST(Site, AnEmptyArchiveHasAnIndexAndNoMechanismPages) {
  auto pages = site_archive_pages({}, Tier::Member);
  ASSERT_TRUE(pages.ok()) << pages.error().message;
  ASSERT_EQ(pages->size(), 3u);  // index.html, style.css, units.html
  EXPECT_EQ(count((*pages)[0].second, "0 case(s) of 0 mechanism(s) in 0 <a href=\"units.html\">split unit(s)</a>"), 1u);
}
