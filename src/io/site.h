// The archive as a static web site (`failmap export --format site`, docs/export.md).
//
// Layout of a site folder (flat: every link is a file name beside the page,
// so the folder reads the same from file:// and from any web server):
//
//   index.html              every case by mechanism: tier, variant, title, recorded run outcomes; counts
//   units.html              the split units: which mechanisms are tied together, and by which evaluation_group
//   style.css               the one stylesheet
//   case-<case id>.html     one page per case: the published page's content (src/io/page.h page_content)
//   mechanism-<id>.html     one page per mechanism: prose, evaluation groups, cases, related mechanisms,
//                           a link to the bug report it is grounded in
//   leaderboard.html        with graded models only (export --results DIR...): per split and model,
//                           resolved rate, pass@k with 95% intervals, coverage, held-out, and a
//                           per-mechanism bar chart (inline SVG)
//
// Case ids and mechanism ids are [A-Za-z0-9._-] (valid_case_id): the
// prefixes keep their pages apart from each other and from the fixed names.
//
// Plain HTML5, no script, nothing loaded from another host (each page's
// Content-Security-Policy forbids both; the one link out of the site is a
// mechanism's bug report, followed only when clicked), readable with CSS off. The pages
// are mustache templates (templates/site-*.mustache, compiled in by
// cmake/Embed.cmake) rendered with mstch, which escapes every {{value}}
// (site_html_escape): a case's strings are shown as written, never read as
// markup. Output depends only on its input: the same archive gives the same
// bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/mechanism.h"
#include "core/result.h"
#include "io/leaderboard.h"

namespace failmap {

/// A strategy's recorded run as the index shows it.
struct SiteRunOutcome {
  StrategyKind strategy = StrategyKind::Broken;
  bool recorded = false;  ///< false: the archive holds no run of it
  int exit_status = 0;
  std::size_t passed = 0, checks = 0;  ///< passed checks of `checks`
};

/// What the index, mechanism and unit pages know of a case.
struct SiteCaseSummary {
  std::string id, mechanism, title;
  int variant = 1;
  Tier tier = Tier::Open;  ///< the case's access tier
  std::vector<std::string> evaluation_group;
  std::vector<SiteRunOutcome> runs;  ///< one per strategy the site's tier shows, in strategy order
};

/// Text as HTML: & < > " ' as character references; control characters
/// other than tab and line feed (C0, DEL, C1), which HTML cannot carry, shown
/// as `\x1b` and `\u009b`, as failmap's terminal output shows them.
std::string site_html_escape(std::string_view text);

/// A model name as the leaderboard shows it (then HTML-escaped): characters
/// that show nothing or look like others are written as `\u200b`-style
/// escapes — the zero-width and bidirectional controls (U+200B..U+200F,
/// U+202A..U+202E, U+2060..U+2069), U+FEFF, U+00AD, U+034F, U+180E —, every
/// white space but the plain space inside it (a tab, a line break, U+00A0),
/// and all white space at either end (`model-A\u0020`), so two names that
/// differ never show alike. Other control characters as site_html_escape
/// shows them; invalid UTF-8 as `\ufffd`.
std::string site_visible_name(std::string_view name);

/// "case-<id>.html".
std::string site_case_path(std::string_view case_id);

/// The case's page (case-<id>.html) at the site's tier `tier`: the sections
/// of the published page in its order (PageContent), the reference sources
/// indented; with `leaderboard` its navigation links leaderboard.html.
/// Errors as page_content.
Result<std::string> site_case_page(const Case& c, Tier tier, bool leaderboard = false);

/// index.html, units.html, style.css and one mechanism-<id>.html per
/// mechanism of `cases` (which are in id order), and leaderboard.html when
/// `scores` is not empty (then every page links it): (path, bytes), sorted
/// by path. The leaderboard has a section per split (in name order, the
/// gradings without a split first) and in it a row per model, by pass@1
/// (highest first), then name. Errors: a mechanism that is not compiled in;
/// two scores of one model on one split (two gradings of it named).
Result<std::vector<std::pair<std::string, std::string>>> site_archive_pages(const std::vector<SiteCaseSummary>& cases,
                                                                            Tier tier,
                                                                            const std::vector<ModelScore>& scores = {});

}  // namespace failmap
