// Published case pages (the format of tests/data/seeds/000_b91ddc69b4d265ed.txt),
// read and written. Line by line, '\n' line ends, no final newline:
//
//   ID / MECHANISM TITLE / Open access|Member access
//   TITLE · case NN
//   SUMMARY
//   ROOT CAUSE / <line> / THE FAILURE / <line> / Unsuccessful approach: <text>
//   Case contract / <line> / Why this case matters / <line>
//   then per shown strategy a numbered section
//     "1 / The failure" | "2 / The unsuccessful fix" | "3 / The repair"
//     Exit N"""Failure Map reference implementation. …"""   (joined on one line)
//     the reference script (src/io/reference.h) with indentation stripped
//     | Boundary fixture | Actual | Expected | Outcome |, |---|…, one row per check
//     SHA-256 / <hex>
//   open tier: the member-archive notice, its last line "Sign in to the archive ↗"
//     joined with the next heading; member tier: section 3 instead of the notice
//   Verification & scope / SCOPE
//   Observations recorded using RUNTIME at TIME.   (left out when both are empty)
//   Case digest / <hex>
//
// Digests on a page: a case's published digests verbatim when it has them;
// otherwise failmap's own: the observation digest of each section's run, and
// for the case digest the SHA-256 of the case's bundle record line at the
// page's tier (dump_compact(case_record(c, tier)), no newline).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "core/result.h"
#include "encoding/input_problem.h"

namespace failmap {

/// One cell (or exit status) where a published page and failmap's computation
/// disagree. Stored for pages imported with --force (schema/002_history.sql).
struct Disagreement {
  std::string case_id;
  std::string source;  ///< "PAGE:LINE"
  StrategyKind strategy = StrategyKind::Broken;
  std::string check;   ///< fixture label, or "" for the exit status
  std::string column;  ///< "Boundary fixture", "Actual", "Expected", "Outcome", "Exit" or "Rows"
  std::string page_value;
  std::string computed_value;
  std::size_t line = 0;  ///< the LINE of `source`, 1-based; 0 when not known (read back from an archive)
};

/// "FILE:LINE: section '1 / The failure', check 'x', column Actual: page says 1, computed 0".
std::string describe(const Disagreement& d);
/// describe(d) without its "FILE:LINE: " (for callers that give the place apart).
std::string describe_cell(const Disagreement& d);

/// What read_page found besides the case.
struct PageReading {
  Case record;
  std::vector<Disagreement> disagreements;  ///< empty when the page agrees cell by cell
  /// The restored (indented) Python source of each shown section, in order:
  /// the compiled strategy the section's stripped source matched.
  std::vector<std::string> restored_sources;
};

/// Reads a page. `where` (the file path) prefixes every message, with the
/// line number. Structural problems (truncated page, unknown mechanism title,
/// a solve body matching no compiled strategy — naming the section —,
/// fixture templates other than the mechanism's, bad id, invalid UTF-8, a
/// line longer than k_max_line_bytes (src/encoding/limits.h), a '\r' inside a line
/// (only a CRLF line end may hold one), a one-line field holding what
/// render_page refuses to write (first_unshowable: a control character or a
/// bidirectional control, "field 'summary': holds U+0007, …"), each named) go to
/// `errors`, each at the line it is about; a line that differs from what
/// the format or the reference script holds there is shown with what was
/// expected, JSON-quoted (trailing whitespace visible), from a little before
/// the first difference when long, and that difference's column. Prose
/// lines are free text: trailing whitespace there is kept verbatim. Table cells and exit statuses are recomputed by
/// running the strategies; differences are returned as disagreements, not errors (the caller decides: refuse, or
/// --force). Each problem is an Input problem (encoding/input_problem.h): file
/// `where`, the line (0 for a problem of the whole page), the message.
/// Returns true when `errors` got nothing.
bool read_page(std::string_view text, const std::string& where, PageReading* out, ProblemSink errors);

/// Renders the case's page at `tier` (the text of page_content). Errors: a
/// prose field holding a line break, a control character or a bidirectional
/// control (first_unshowable; read_page refuses the same, so every page that
/// reads renders again), a scope that starts like the recorded line, a
/// strategy that fails to run, an unknown mechanism.
Result<std::string> render_page(const Case& c, Tier tier);

/// One numbered section of a page: a strategy the page's tier shows.
struct PageSection {
  StrategyKind strategy = StrategyKind::Broken;
  RunOutcome run;      ///< the strategy run afresh on the case's fixtures
  std::string source;  ///< the reference script (src/io/reference.h), indented, '\n' after each line
  std::string digest;  ///< "SHA-256 / …": the published digest verbatim, else failmap's observation digest
};

/// What a case's page shows at a tier, in page order, as data: render_page
/// writes it as text, the static site (src/io/site.h) as HTML. Strings are
/// the case's own, unescaped.
struct PageContent {
  const Mechanism* mechanism = nullptr;
  std::string_view tier_label;        ///< "Open access" | "Member access" (the page's tier)
  std::string variant;                ///< two digits, "01"
  std::vector<PageSection> sections;  ///< in strategy order, those tier_shows(tier, …)
  /// Open tier: the member-archive notice, one string per line, its last
  /// "Sign in to the archive ↗"; member tier: empty.
  std::vector<std::string> notice;
  std::string recorded;     ///< "Observations recorded using RUNTIME at TIME.", or "" when both are empty
  std::string case_digest;  ///< "Case digest / …": published verbatim, else failmap's (see above)
};

/// The content of the case's page at `tier`. Errors: an unknown mechanism, a
/// strategy that fails to run. Unlike render_page it takes any text (line
/// breaks included): HTML can show what a text page cannot.
Result<PageContent> page_content(const Case& c, Tier tier);

/// Section heading of a strategy: "1 / The failure", "2 / The unsuccessful fix", "3 / The repair".
std::string_view page_section_title(StrategyKind kind);

}  // namespace failmap
