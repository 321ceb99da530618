#include "io/page.h"

#include <cstdio>

#include "core/evaluate.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/limits.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/text.h"
#include "io/bundle.h"
#include "io/observation.h"
#include "io/reference.h"

namespace failmap {
namespace {

constexpr std::string_view k_table_header = "| Boundary fixture | Actual | Expected | Outcome |";
constexpr std::string_view k_table_rule = "|---|---|---|---|";
constexpr std::string_view k_notice_heading = "HELD IN THE MEMBER ARCHIVE";
constexpr std::string_view k_sign_in = "Sign in to the archive \xE2\x86\x97";
constexpr std::string_view k_scope_heading = "Verification & scope";
constexpr std::string_view k_recorded_prefix = "Observations recorded using ";
constexpr std::string_view k_case_digest_prefix = "Case digest / ";
constexpr std::string_view k_sha_prefix = "SHA-256 / ";
constexpr std::string_view k_variant_sep = " \xC2\xB7 case ";

std::string_view tier_label(Tier t) { return t == Tier::Open ? "Open access" : "Member access"; }

std::string notice(std::size_t checks) {
  return std::string(k_notice_heading) +
         "\nThe verified repair and its recorded checks are member-only.\n"
         "This mechanism has " +
         std::to_string(checks) +
         " recorded checks per implementation. The open-access tier publishes the failure and the unsuccessful fix; "
         "the repaired source that passes every check, and the observations that prove it, are available to members.\n"
         "Every case sharing this mechanism uses the same contract and the same repair, so this one record is held "
         "back for all of them.\n"
         "Member access is invitation-based. Sign in with your invited account to inspect the repair.\n" +
         std::string(k_sign_in);
}

// Splits on '\n' (no line-end character kept).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back(text.substr(pos));
      return out;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
}

std::string_view lstrip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The lines of `source` with their indentation removed, as a page shows them.
std::vector<std::string> stripped_lines(std::string_view source) {
  std::vector<std::string> out;
  for (std::string_view l : split_lines(source)) out.emplace_back(lstrip(l));
  if (!out.empty() && out.back().empty()) out.pop_back();  // the final newline
  return out;
}

std::string case_digest_fallback(const Case& c, Tier tier) { return sha256_hex(dump_compact(case_record(c, tier))); }

// Cells of a table row "| a | b | c | d |"; empty when the row is not shaped so.
std::vector<std::string> row_cells(std::string_view row) {
  std::vector<std::string> cells;
  if (row.size() < 4 || row.substr(0, 2) != "| " || row.substr(row.size() - 2) != " |") return cells;
  row = row.substr(2, row.size() - 4);
  std::size_t pos = 0;
  for (;;) {
    std::size_t sep = row.find(" | ", pos);
    if (sep == std::string_view::npos) {
      cells.emplace_back(row.substr(pos));
      return cells;
    }
    cells.emplace_back(row.substr(pos, sep - pos));
    pos = sep + 3;
  }
}

// Python str repr as the reference prints labels: '…' or "…" with \\ \' \" \n \r \t \xNN.
bool parse_str_repr(std::string_view s, std::size_t* pos, std::string* out) {
  if (*pos >= s.size() || (s[*pos] != '\'' && s[*pos] != '"')) return false;
  char q = s[(*pos)++];
  while (*pos < s.size()) {
    char c = s[(*pos)++];
    if (c == q) return true;
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (*pos >= s.size()) return false;
    char e = s[(*pos)++];
    switch (e) {
      case '\\':
        out->push_back('\\');
        break;
      case '\'':
        out->push_back('\'');
        break;
      case '"':
        out->push_back('"');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'x': {
        if (*pos + 2 > s.size()) return false;
        unsigned v = 0;
        if (std::sscanf(std::string(s.substr(*pos, 2)).c_str(), "%2x", &v) != 1) return false;
        out->push_back(static_cast<char>(v));
        *pos += 2;
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

// A check line "check('LABEL',solve(ARGS),EXPECTED)".
struct CheckLine {
  std::string label, args, expected;
};
bool parse_check_line(std::string_view line, CheckLine* out) {
  if (line.substr(0, 6) != "check(" || line.back() != ')') return false;
  std::size_t pos = 6;
  if (!parse_str_repr(line, &pos, &out->label)) return false;
  if (line.substr(pos, 7) != ",solve(") return false;
  pos += 7;
  std::size_t start = pos;
  int depth = 1;
  for (; pos < line.size() && depth > 0; ++pos) {
    if (line[pos] == '(' || line[pos] == '[') ++depth;
    else if (line[pos] == ')' || line[pos] == ']') --depth;
  }
  if (depth != 0) return false;
  out->args = std::string(line.substr(start, pos - 1 - start));
  if (pos >= line.size() || line[pos] != ',') return false;
  out->expected = std::string(line.substr(pos + 1, line.size() - pos - 2));
  return true;
}

// Showing page lines in messages: JSON-quoted, so that trailing whitespace
// and control characters are visible, and cut to k_shown bytes around where
// two lines differ rather than at their start (a difference past the cut
// would not show).
constexpr std::size_t k_shown = 100;
constexpr std::size_t k_shown_before = 40;  // bytes shown before the first difference of long lines

bool utf8_continuation(char ch) { return (static_cast<unsigned char>(ch) & 0xC0) == 0x80; }

// Byte `at` of `s` moved back to the start of its UTF-8 character.
std::size_t char_start(std::string_view s, std::size_t at) {
  while (at > 0 && at < s.size() && utf8_continuation(s[at])) --at;
  return at;
}

// `s` from byte `from` (a character start), at most k_shown bytes of it,
// quoted, with "..." outside the quotes for what is left out on either side
// (quote_excerpt: a BOM or a byte that is no character shows escaped).
std::string excerpt(std::string_view s, std::size_t from = 0) { return quote_excerpt(s, k_shown, from); }

// `expected "E", found "F" (first difference at column C)`: both lines
// quoted, from a little before their first difference when either is too
// long to show whole; C counts characters from 1, plus `column_offset` (the
// characters before the line's text on its page line, e.g. "Exit 1").
std::string difference(std::string_view expected, std::string_view found, std::size_t column_offset = 0) {
  std::size_t d = 0;
  while (d < expected.size() && d < found.size() && expected[d] == found[d]) ++d;
  // Back to the start of the character that differs (the bytes before d are shared).
  while (d > 0 &&
         ((d < found.size() && utf8_continuation(found[d])) || (d < expected.size() && utf8_continuation(expected[d]))))
    --d;
  std::size_t from = 0;
  if (std::max(expected.size(), found.size()) > k_shown && d > k_shown_before)
    from = char_start(found, d - k_shown_before);
  std::size_t column = 1 + column_offset;
  for (std::size_t i = 0; i < d; ++i) column += utf8_continuation(found[i]) ? 0 : 1;
  return "expected " + excerpt(expected, from) + ", found " + excerpt(found, from) + " (first difference at column " +
         std::to_string(column) + ")";
}

// A page section as read, before the mechanism is known.
struct RawSection {
  StrategyKind strategy;
  std::size_t heading_line;  // 1-based
  int exit_status = 0;
  std::size_t exit_digits = 0;      // digits of "Exit N" before source[0] on its line
  std::vector<std::string> source;  // stripped lines, docstring first
  std::size_t source_line = 0;      // line of source[0]
  std::vector<std::string_view> rows;
  std::size_t rows_line = 0;
  std::string digest;
};

class PageReader {
 public:
  // Over-long lines (k_max_line_bytes, src/encoding/limits.h, measured as JSON
  // Lines measures them: without the '\n') and lines holding a '\r' other
  // than a CRLF line end each get an error here. A lone '\r' is a line break
  // to other readers (Python's splitlines) and render_page could not write
  // it back.
  PageReader(std::string_view text, const std::string& where, ProblemSink& errors) : m_where(where), m_errors(errors) {
    for (std::string_view l : split_lines(text)) {
      const bool too_long = l.size() > k_max_line_bytes;
      if (too_long) error(m_lines.size() + 1, line_too_long_text());
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (!too_long && l.find('\r') != std::string_view::npos)
        error(m_lines.size() + 1, "carriage return inside the line (a page's lines end with '\\n' or '\\r\\n')");
      // The file's own BOM was skipped (skip_file_bom); any other is refused.
      if (l.starts_with(k_utf8_bom)) error(m_lines.size() + 1, std::string(k_bom_refused));
      m_lines.push_back(l);
    }
    while (m_lines.size() > 1 && m_lines.back().empty()) m_lines.pop_back();
  }

  bool at_end() const { return m_pos >= m_lines.size(); }
  std::size_t line_no() const { return m_pos + 1; }
  void error(std::size_t line, std::string msg) { m_errors.add(input_problem(m_where, line, "", std::move(msg))); }

  // The next line, or nullopt (reporting a truncated page expecting `what`).
  const std::string_view* next(const std::string& what) {
    if (at_end()) {
      error(m_lines.size(), "truncated page: expected " + what + " after the last line");
      return nullptr;
    }
    return &m_lines[m_pos++];
  }
  bool expect(std::string_view exact) {
    const std::string_view* l = next("'" + std::string(exact) + "'");
    if (!l) return false;
    if (*l != exact) {
      error(m_pos, difference(exact, *l));
      return false;
    }
    return true;
  }
  const std::string_view* peek() const { return at_end() ? nullptr : &m_lines[m_pos]; }

 private:
  std::string m_where;
  ProblemSink& m_errors;
  std::vector<std::string_view> m_lines;
  std::size_t m_pos = 0;

 public:
  std::size_t& pos() { return m_pos; }
};

}  // namespace

std::string_view page_section_title(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::Broken:
      return "1 / The failure";
    case StrategyKind::Unsuccessful:
      return "2 / The unsuccessful fix";
    case StrategyKind::Repaired:
      return "3 / The repair";
  }
  return "";
}

std::string describe(const Disagreement& d) { return d.source + ": " + describe_cell(d); }

std::string describe_cell(const Disagreement& d) {
  std::string out = "section '" + std::string(page_section_title(d.strategy)) + "'";
  if (!d.check.empty()) out += ", check '" + d.check + "'";
  out += ", " + d.column + ": page says " + d.page_value + ", computed " + d.computed_value;
  return out;
}

Result<PageContent> page_content(const Case& c, Tier tier) {
  PageContent out;
  out.mechanism = find_mechanism(c.mechanism);
  if (!out.mechanism) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  out.tier_label = tier_label(tier);
  char variant[16];
  std::snprintf(variant, sizeof variant, "%02d", c.variant);
  out.variant = variant;
  for (StrategyKind k : k_all_strategies) {
    if (!tier_shows(tier, k)) continue;
    PageSection& s = out.sections.emplace_back();
    s.strategy = k;
    FAILMAP_TRY_ASSIGN(s.run, run_strategy(c, k));
    s.source = reference_script(c, *out.mechanism, k);
    for (const PublishedRun& p : c.published.runs)
      if (p.strategy == k) s.digest = p.digest;
    if (s.digest.empty()) s.digest = observation_digest(observation_document(c, s.run));
  }
  if (tier == Tier::Open) {
    // Named, so it lives through the loop: a temporary in a range-for's
    // initializer dies before the body runs (C++20), leaving the views dangling.
    const std::string text = notice(c.fixtures.size());
    for (std::string_view l : split_lines(text)) out.notice.emplace_back(l);
  }
  if (!c.recorded_runtime.empty() || !c.recorded_at.empty())
    out.recorded = std::string(k_recorded_prefix) + c.recorded_runtime + " at " + c.recorded_at + ".";
  out.case_digest = c.published.case_digest.empty() ? case_digest_fallback(c, tier) : c.published.case_digest;
  return out;
}

namespace {

// What a page may not carry raw in a one-line field (first_unshowable), in
// the words both the writer and the reader use: the rule is one, so a page
// failmap reads it can write again, and the other way round.
std::string unshowable_what(char32_t u) {
  return "holds " + code_point_text(u) +
         (u >= 0x2000 ? ", a bidirectional control, which would reorder what a reader of the page sees"
                      : ", a control character, which a page would carry raw to its reader's terminal");
}

}  // namespace

Result<std::string> render_page(const Case& c, Tier tier) {
  for (const auto& [field, text] : one_line_fields(c))
    if (text->find_first_of("\r\n") != std::string::npos)
      return input_error("case " + c.id + ", field '" + field + "': a line break cannot be shown on a page");
  // A page is read with cat, head and less: a control character would reach
  // the reader's terminal raw (list, show and the site escape them instead).
  for (const auto& [field, text] : one_line_fields(c))
    if (auto u = first_unshowable(*text))
      return input_error("case " + c.id + ", field '" + field + "': " + unshowable_what(*u) + " (`failmap show " +
                         c.id + "` shows it escaped; edit the case and import it with --replace)");
  if (c.prose.scope.substr(0, k_recorded_prefix.size()) == k_recorded_prefix)
    return input_error("case " + c.id + ", field 'scope': a page would read a scope starting '" +
                       std::string(k_recorded_prefix) + "' as its recorded line");
  FAILMAP_TRY_ASSIGN(auto content, page_content(c, tier));
  const PageContent& p = content;
  std::string out;
  out += c.id + " / " + std::string(p.mechanism->title) + " / " + std::string(p.tier_label) + "\n";
  out += c.title + std::string(k_variant_sep) + p.variant + "\n";
  out += c.prose.summary + "\n";
  out += "ROOT CAUSE\n" + c.prose.root_cause + "\n";
  out += "THE FAILURE\n" + c.prose.failure + "\n";
  out += "Unsuccessful approach: " + c.prose.unsuccessful_approach + "\n";
  out += "Case contract\n" + c.prose.contract + "\n";
  out += "Why this case matters\n" + c.prose.why_it_matters + "\n";
  for (const PageSection& s : p.sections) {
    out += std::string(page_section_title(s.strategy)) + "\n";
    out += "Exit " + std::to_string(s.run.exit_status());
    for (const std::string& l : stripped_lines(s.source)) out += l + "\n";
    out += observation_table(c, s.run);
    out += std::string(k_sha_prefix) + s.digest + "\n";
  }
  for (std::size_t i = 0; i < p.notice.size(); ++i) out += p.notice[i] + (i + 1 < p.notice.size() ? "\n" : "");
  out += std::string(k_scope_heading) + "\n" + c.prose.scope + "\n";
  if (!p.recorded.empty()) out += p.recorded + "\n";
  out += std::string(k_case_digest_prefix) + p.case_digest;
  return out;
}

namespace {

// One reading of a page (read_page): a member function per section of the
// page, in the order it holds them, then the checks of its sources against
// the compiled mechanism and of its tables against the computation. Every
// problem goes to `errors`; a section the reader cannot get past ends the
// reading (its function returns false).
class PageParser {
 public:
  PageParser(std::string_view text, const std::string& where, PageReading* out, ProblemSink& errors)
      : m_where(where), m_out(out), m_errors(errors), m_before(errors.count()), m_r(text, where, errors) {}

  bool run() {
    if (m_errors.count() != m_before) return false;  // a line beyond the cap or with a stray '\r'
    if (!read_header() || !read_prose() || !read_sections() || !read_notice_and_scope() || !read_recorded_and_digest())
      return false;
    if (!m_mech || m_errors.count() != m_before) return false;
    // The sources: binding, fixture templates, solve body against the compiled strategies.
    if (!read_binding()) return false;
    check_repeated_binding();
    if (m_errors.count() != m_before) return false;
    for (const RawSection& s : m_sections) check_solve_body(s);
    if (m_errors.count() != m_before) return false;
    // The case, then the whole stripped script of each section against the reference.
    if (!make_page_case()) return false;
    for (const RawSection& s : m_sections) compare_section(s);
    if (m_errors.count() != m_before) return false;
    m_out->record = std::move(*m_made);
    return true;
  }

 private:
  // Header: ID / MECHANISM TITLE / TIER, then the title line.
  bool read_header() {
    const std::string_view* header = m_r.next("the header 'ID / MECHANISM / TIER'");
    if (!header) return false;
    std::size_t first = header->find(" / "), last = header->rfind(" / ");
    if (first == std::string_view::npos || first == last) {
      m_r.error(1, "expected the header 'ID / MECHANISM TITLE / Open access'");
      return false;
    }
    m_c.id = std::string(header->substr(0, first));
    std::string mech_title(header->substr(first + 3, last - first - 3));
    std::string_view tier_text = header->substr(last + 3);
    if (tier_text == tier_label(Tier::Open)) m_c.tier = Tier::Open;
    else if (tier_text == tier_label(Tier::Member)) m_c.tier = Tier::Member;
    else
      m_r.error(1, "unknown access tier '" + std::string(tier_text) + "' (expected 'Open access' or 'Member access')");
    if (!valid_case_id(m_c.id))
      m_r.error(1, "case id '" + m_c.id +
                       "' is not valid (1-64 of A-Z a-z 0-9 . _ -, no '/', '..' or NUL; ids become file names)");
    m_mech = find_mechanism_by_title(mech_title);
    if (!m_mech) m_r.error(1, "mechanism title '" + mech_title + "' names no compiled-in mechanism");

    // Title · case NN
    const std::string_view* title = m_r.next("the title line 'TITLE · case NN'");
    if (!title) return false;
    std::size_t sep = title->rfind(k_variant_sep);
    if (sep == std::string_view::npos) {
      m_r.error(2, "expected the title line 'TITLE · case NN'");
    } else {
      m_c.title = std::string(title->substr(0, sep));
      std::string_view nn = title->substr(sep + k_variant_sep.size());
      int v = 0;
      // At most three digits before any arithmetic: "case 0123456789…" must not overflow v.
      bool digits = !nn.empty() && nn.size() <= 3 && nn.find_first_not_of("0123456789") == std::string_view::npos;
      if (digits)
        for (char ch : nn) v = v * 10 + (ch - '0');
      if (!digits || v < 1 || v > 99) m_r.error(2, "case number '" + std::string(nn) + "' is not 01..99");
      m_c.variant = v;
    }
    showable(m_c.title, 2, "title");
    return true;
  }

  // A page carries only what render_page writes: a one-line field holding a
  // control character or a bidirectional control is refused here as there.
  void showable(std::string_view value, std::size_t line, const char* field) {
    if (auto u = first_unshowable(value)) m_r.error(line, std::string("field '") + field + "': " + unshowable_what(*u));
  }
  // The next line into `field`, a page field `name` (`what` names it when the page ends before it).
  bool prose_line(std::string* field, const char* what, const char* name) {
    const std::string_view* l = m_r.next(what);
    if (!l) return false;
    *field = std::string(*l);
    showable(*field, m_r.line_no() - 1, name);
    return true;
  }

  // Summary, root cause, failure, unsuccessful approach, contract, why it matters.
  bool read_prose() {
    if (!prose_line(&m_c.prose.summary, "the summary line", "summary")) return false;
    if (!m_r.expect("ROOT CAUSE") || !prose_line(&m_c.prose.root_cause, "the root cause", "root_cause")) return false;
    if (!m_r.expect("THE FAILURE") || !prose_line(&m_c.prose.failure, "the failure", "failure")) return false;
    const std::string_view* ua = m_r.next("'Unsuccessful approach: …'");
    if (!ua) return false;
    if (ua->substr(0, 23) != "Unsuccessful approach: ")
      m_r.error(m_r.line_no() - 1, "expected 'Unsuccessful approach: …', found " + excerpt(*ua));
    else m_c.prose.unsuccessful_approach = std::string(ua->substr(23));
    showable(m_c.prose.unsuccessful_approach, m_r.line_no() - 1, "unsuccessful_approach");
    if (!m_r.expect("Case contract") || !prose_line(&m_c.prose.contract, "the case contract", "contract")) return false;
    if (!m_r.expect("Why this case matters") ||
        !prose_line(&m_c.prose.why_it_matters, "why this case matters", "why_it_matters"))
      return false;

    return true;
  }

  // The numbered sections: heading, "Exit N" and source, observation table, SHA-256.
  bool read_sections() {
    for (StrategyKind k : k_all_strategies) {
      const std::string_view* l = m_r.peek();
      if (!l) {
        m_r.next("section '" + std::string(page_section_title(k)) + "' or 'Verification & scope'");
        return false;
      }
      if (*l != page_section_title(k)) break;
      RawSection s{k, m_r.line_no(), 0, 0, {}, 0, {}, 0, {}};
      m_r.next("");
      std::string label(page_section_title(k));
      const std::string_view* ex = m_r.next("'Exit N' in section '" + label + "'");
      if (!ex) return false;
      std::size_t digits_end = 5;
      while (digits_end < ex->size() && (*ex)[digits_end] >= '0' && (*ex)[digits_end] <= '9') ++digits_end;
      if (ex->substr(0, 5) != "Exit " || digits_end == 5 || digits_end > 8) {
        m_r.error(m_r.line_no() - 1, "section '" + label + "': expected 'Exit N' followed by the source");
        return false;
      }
      s.exit_status = std::stoi(std::string(ex->substr(5, digits_end - 5)));
      s.exit_digits = digits_end - 5;
      s.source_line = m_r.line_no() - 1;
      s.source.emplace_back(ex->substr(digits_end));
      for (;;) {
        const std::string_view* sl = m_r.next("the observation table of section '" + label + "'");
        if (!sl) return false;
        if (*sl == k_table_header) break;
        // No line of a reference script starts with '|': this is the table's header, edited.
        if (!sl->empty() && sl->front() == '|') {
          m_r.error(m_r.line_no() - 1, "section '" + label + "': " + difference(k_table_header, *sl));
          return false;
        }
        s.source.emplace_back(*sl);
      }
      if (!m_r.expect(k_table_rule)) return false;
      s.rows_line = m_r.line_no();
      for (;;) {
        const std::string_view* tl = m_r.next("'SHA-256 / …' of section '" + label + "'");
        if (!tl) return false;
        if (tl->substr(0, k_sha_prefix.size()) == k_sha_prefix) {
          s.digest = std::string(tl->substr(k_sha_prefix.size()));
          if (!is_sha256_hex(s.digest))
            m_r.error(
                m_r.line_no() - 1,
                "section '" + label + "': SHA-256 value is not 64 lower-case hex digits: found " + excerpt(s.digest));
          break;
        }
        // Table rows start with '|': anything else is where the SHA-256 line
        // should have been (a missing one was blamed on the next section).
        if (tl->empty() || tl->front() != '|') {
          m_r.error(m_r.line_no() - 1,
                    "section '" + label + "': expected a table row or 'SHA-256 / …', found " + excerpt(*tl));
          return false;
        }
        s.rows.push_back(*tl);
      }
      m_sections.push_back(std::move(s));
    }
    if (m_sections.size() < 2) {
      std::string_view heading = page_section_title(static_cast<StrategyKind>(m_sections.size()));
      m_r.error(m_r.line_no(), "section heading: " + difference(heading, *m_r.peek()));
      return false;
    }
    bool has_repair = m_sections.size() == 3;
    if (m_c.tier == Tier::Open && has_repair)
      m_r.error(m_sections[2].heading_line, "an open-access page must not show the repair");
    if (m_c.tier == Tier::Member && !has_repair)
      m_r.error(m_r.line_no(), "a member-access page must show section '3 / The repair', and this one does not");
    return true;
  }

  // The member-archive notice (open pages), "Verification & scope" and its paragraph.
  bool read_notice_and_scope() {
    bool notice_seen = false;
    // The member-archive notice ends with "Sign in to the archive ↗" joined to the next heading.
    const std::string_view* l = m_r.peek();
    if (l && l->substr(0, k_notice_heading.size()) == k_notice_heading) {
      notice_seen = true;
      // The notice's lines, up to the one that starts "Sign in to the archive ↗".
      std::size_t notice_line = m_r.line_no();
      std::vector<std::string_view> lines;
      for (;;) {
        const std::string_view* nl = m_r.next("'Sign in to the archive ↗Verification & scope'");
        if (!nl) return false;
        lines.push_back(*nl);
        if (nl->substr(0, k_sign_in.size()) == k_sign_in) break;
      }
      // Its text is fixed (with the mechanism's number of checks): the first
      // line that differs from it is named, with what it holds.
      // Without the mechanism (the header's error is named) only the join
      // with the next heading is known.
      std::string expected_text = std::string(k_sign_in) + std::string(k_scope_heading);
      std::vector<std::string_view> want(lines.begin(), lines.end() - 1);
      if (m_mech) {
        expected_text = notice(m_mech->fixtures.size()) + std::string(k_scope_heading);
        want.clear();
      }
      for (std::string_view w : split_lines(expected_text)) want.push_back(w);
      for (std::size_t k = 0; k < std::max(lines.size(), want.size()); ++k) {
        if (k < lines.size() && k < want.size() && lines[k] == want[k]) continue;
        if (k < lines.size() && k < want.size())
          m_r.error(notice_line + k, "the member-archive notice: " + difference(want[k], lines[k]));
        else
          m_r.error(notice_line + std::min(k, lines.size() - 1), "the member-archive notice has " +
                                                                     std::to_string(lines.size()) +
                                                                     " lines, expected " + std::to_string(want.size()));
        break;
      }
    } else if (!m_r.expect(k_scope_heading)) {
      return false;
    }
    if (m_c.tier == Tier::Open && !notice_seen)
      m_r.error(m_r.line_no() - 1, "an open-access page holds the member-archive notice");
    if (!prose_line(&m_c.prose.scope, "the verification & scope paragraph", "scope")) return false;
    // The scope paragraph deleted: the optional recorded line would be read
    // as the scope, and the page import silently (render_page refuses to
    // write a scope of that shape, so this is never a page of failmap's).
    if (m_c.prose.scope.substr(0, k_recorded_prefix.size()) == k_recorded_prefix) {
      m_r.error(m_r.line_no() - 1, "expected the verification & scope paragraph after '" +
                                       std::string(k_scope_heading) + "', found the recorded line " +
                                       excerpt(m_c.prose.scope));
      return false;
    }
    return true;
  }

  // The optional recorded line, then the case digest, which ends the page.
  bool read_recorded_and_digest() {
    const std::string_view* l = m_r.peek();
    if (l && l->substr(0, k_recorded_prefix.size()) == k_recorded_prefix) {
      std::string_view rec = l->substr(k_recorded_prefix.size());
      std::size_t at = rec.rfind(" at ");
      if (at == std::string_view::npos || rec.empty() || rec.back() != '.') {
        m_r.error(m_r.line_no(), "expected 'Observations recorded using RUNTIME at TIME.', found " + excerpt(*l));
      } else {
        m_c.recorded_runtime = std::string(rec.substr(0, at));
        m_c.recorded_at = std::string(rec.substr(at + 4, rec.size() - at - 5));
        showable(m_c.recorded_runtime, m_r.line_no(), "recorded.runtime");
        showable(m_c.recorded_at, m_r.line_no(), "recorded.at");
      }
      m_r.next("");
    }
    const std::string_view* cd = m_r.next("'Case digest / …'");
    if (!cd) return false;
    if (cd->substr(0, k_case_digest_prefix.size()) != k_case_digest_prefix) {
      m_r.error(m_r.line_no() - 1, "expected 'Case digest / …', found " + excerpt(*cd));
      return false;
    }
    m_c.published.case_digest = std::string(cd->substr(k_case_digest_prefix.size()));
    if (!is_sha256_hex(m_c.published.case_digest))
      m_r.error(m_r.line_no() - 1,
                "case digest is not 64 lower-case hex digits: found " + excerpt(m_c.published.case_digest));
    if (!m_r.at_end()) m_r.error(m_r.line_no(), "unexpected text after the case digest");
    return true;
  }

  // The binding in section 1 (its lines after the docstring and "import json") into m_params.
  bool read_binding() {
    const RawSection& s0 = m_sections[0];
    std::size_t i = 2;  // after the docstring and "import json"
    for (std::size_t p = 0; p < m_mech->parameters.size(); ++p, ++i) {
      std::string name(m_mech->parameters[p]);
      std::string prefix = name + " = ";
      if (i >= s0.source.size() || s0.source[i].rfind(prefix, 0) != 0) {
        m_r.error(s0.source_line + i, "section '1 / The failure': expected the binding '" + prefix + "…'");
        return false;
      }
      auto v = evaluate_expression(std::string_view(s0.source[i]).substr(prefix.size()), {});
      if (!v) {
        m_r.error(s0.source_line + i, "binding of " + name + ": " + v.error().message);
        return false;
      }
      // The reference prints the binding as NAME = repr(value): any other
      // spelling (a trailing space, "01") is named here, at its own line, not
      // as the other sections' lines that differ from it.
      if (std::string want = prefix + python_repr(*v); s0.source[i] != want) {
        m_r.error(s0.source_line + i, "section '1 / The failure': source line differs from the reference: " +
                                          difference(want, s0.source[i]));
        return false;
      }
      m_params.emplace_back(name, std::move(*v));
    }
    // The binding rule (an integer at or above the minimum), at the binding's
    // own line rather than at the page's first (validate_case below).
    if (auto p = binding_problem(*m_mech, m_params)) {
      std::size_t at = 0;
      while (at < m_mech->parameters.size() && p->field != "params." + std::string(m_mech->parameters[at])) ++at;
      m_r.error(s0.source_line + 2 + (at < m_mech->parameters.size() ? at : 0),
                "binding: field '" + p->field + "': " + p->what);
      return false;
    }
    return true;
  }

  void check_repeated_binding() {
    const RawSection& s0 = m_sections[0];
    // Every section repeats the binding. Sections that disagree are named
    // with both lines: otherwise an edit of section 1's binding would be
    // reported as a difference in every other section.
    for (const RawSection& s : m_sections) {
      for (std::size_t k = 2; k < 2 + m_mech->parameters.size() && k < s.source.size() && &s != &s0; ++k) {
        std::string prefix = std::string(m_mech->parameters[k - 2]) + " = ";
        if (s.source[k].rfind(prefix, 0) == 0 && s.source[k] != s0.source[k])
          m_r.error(s.source_line + k, "section '" + std::string(page_section_title(s.strategy)) + "': binds " +
                                           excerpt(s.source[k]) + ", section '1 / The failure' (line " +
                                           std::to_string(s0.source_line + k) + ") binds " + excerpt(s0.source[k]) +
                                           ": every section of a page runs the same binding");
      }
    }
  }

  // Section `s`'s solve body against the compiled strategies, then its check lines.
  void check_solve_body(const RawSection& s) {
    std::string label(page_section_title(s.strategy));
    // The solve body: from "observations = []" to "def check(…):".
    std::size_t body_start = 0, body_end = 0;
    for (std::size_t k = 0; k < s.source.size(); ++k) {
      if (s.source[k] == "observations = []" && !body_start) body_start = k + 1;
      if (s.source[k].rfind("def check(", 0) == 0 && body_start && !body_end) body_end = k;
    }
    if (!body_start) {  // named at the line after the binding, where the reference has it
      std::size_t k = 2 + m_mech->parameters.size();
      m_r.error(s.source_line + k,
                "section '" + label + "': no solve body: " +
                    (k < s.source.size() ? difference("observations = []", s.source[k])
                                         : std::string("expected \"observations = []\", found nothing")));
      return;
    }
    if (!body_end) {
      m_r.error(s.source_line, "section '" + label + "': no solve body between 'observations = []' and 'def check(…)'");
      return;
    }
    std::vector<std::string> body(s.source.begin() + static_cast<std::ptrdiff_t>(body_start),
                                  s.source.begin() + static_cast<std::ptrdiff_t>(body_end));
    const Strategy* match = nullptr;
    for (StrategyKind k : k_all_strategies)
      if (stripped_lines(m_mech->strategy(k).python) == body) match = &m_mech->strategy(k);
    if (!match) {
      // Point at the first line that differs from the strategy this section should show.
      std::vector<std::string> want = stripped_lines(m_mech->strategy(s.strategy).python);
      std::size_t k = 0;
      while (k < body.size() && k < want.size() && body[k] == want[k]) ++k;
      m_r.error(s.source_line + body_start + k,
                "section '" + label + "': the solve body matches no compiled strategy of mechanism " +
                    std::string(m_mech->id) + ": " +
                    (k < body.size() && k < want.size() ? difference(want[k], body[k])
                     : k < want.size()                  ? "expected " + excerpt(want[k]) + ", found the end of the body"
                                                        : "expected the end of the body, found " + excerpt(body[k])));
      return;
    }
    if (match->kind != s.strategy) {
      m_r.error(s.source_line + body_start, "section '" + label + "': the solve body is the " +
                                                std::string(strategy_name(match->kind)) + " strategy of mechanism " +
                                                std::string(m_mech->id) + ", expected " +
                                                std::string(strategy_name(s.strategy)));
      return;
    }
    m_out->restored_sources.emplace_back(match->python);
    check_fixture_lines(s, label, body_end);
  }

  // Fixture templates: each check line, evaluated at the binding, must be the mechanism's.
  void check_fixture_lines(const RawSection& s, const std::string& label, std::size_t body_end) {
    std::size_t t = 0;
    for (std::size_t k = body_end + 2; k < s.source.size() && s.source[k].rfind("check(", 0) == 0; ++k, ++t) {
      CheckLine cl;
      std::size_t line = s.source_line + k;
      if (!parse_check_line(s.source[k], &cl)) {
        std::string what = "section '" + label + "': expected check('LABEL',solve(ARGS),EXPECTED)";
        if (t < m_mech->fixtures.size()) {
          const FixtureTemplate& ft = m_mech->fixtures[t];
          what += ": " + difference("check(" + python_str_repr(ft.label) + ",solve(" + std::string(ft.args) + ")," +
                                        std::string(ft.expected) + ")",
                                    s.source[k]);
        } else {
          what += ", found " + excerpt(s.source[k]);
        }
        m_r.error(line, what);
        continue;
      }
      auto args = evaluate_arguments(cl.args, m_params);
      auto expected = evaluate_expression(cl.expected, m_params);
      if (!args) m_r.error(line, "check '" + cl.label + "': arguments: " + args.error().message);
      if (!expected) m_r.error(line, "check '" + cl.label + "': expected value: " + expected.error().message);
      if (t >= m_mech->fixtures.size()) {
        m_r.error(line, "check '" + cl.label + "': mechanism " + std::string(m_mech->id) + " has only " +
                            std::to_string(m_mech->fixtures.size()) + " checks");
        continue;
      }
      const FixtureTemplate& ft = m_mech->fixtures[t];
      if (cl.label != ft.label || cl.args != ft.args || cl.expected != ft.expected)
        m_r.error(line, "check '" + cl.label + "' is not the mechanism's fixture template check(" +
                            python_str_repr(ft.label) + ",solve(" + std::string(ft.args) + ")," +
                            std::string(ft.expected) + ")");
    }
    if (t != m_mech->fixtures.size())
      m_r.error(s.source_line + body_end, "section '" + label + "': " + std::to_string(t) + " check lines, mechanism " +
                                              std::string(m_mech->id) + " has " +
                                              std::to_string(m_mech->fixtures.size()));
  }

  // The case the page shows, checked by the case rules.
  bool make_page_case() {
    auto made = make_case(*m_mech, m_c.id, m_c.variant, m_params);
    if (!made) {
      m_r.error(m_sections[0].source_line, made.error().message);
      return false;
    }
    m_made = std::move(*made);
    m_made->title = m_c.title;
    m_made->tier = m_c.tier;
    m_made->prose = m_c.prose;
    m_made->recorded_runtime = m_c.recorded_runtime;
    m_made->recorded_at = m_c.recorded_at;
    m_made->published.case_digest = m_c.published.case_digest;
    for (const RawSection& s : m_sections)
      m_made->published.runs.push_back(PublishedRun{s.strategy, s.exit_status, s.digest});
    // The case's rules at the page's first line (the binding's own rule is named at its line above).
    std::vector<std::string> invalid;
    if (!validate_case(*m_made, "", &invalid)) {
      for (std::string& e : invalid) m_r.error(1, std::move(e));
      return false;
    }
    return true;
  }

  // Section `s`'s whole script against the reference, and its table against
  // the computation: each cell that differs is a disagreement.
  void compare_section(const RawSection& s) {
    std::string label(page_section_title(s.strategy));
    std::vector<std::string> want = stripped_lines(reference_script(*m_made, *m_mech, s.strategy));
    for (std::size_t k = 0; k < std::max(want.size(), s.source.size()); ++k) {
      std::string got = k < s.source.size() ? s.source[k] : "(nothing)";
      std::string exp = k < want.size() ? want[k] : "(nothing)";
      if (got != exp) {
        // Line 0 follows "Exit N" on its page line.
        std::size_t offset = k == 0 ? s.exit_digits + 5 : 0;
        m_r.error(s.source_line + k, "section '" + label + "': source line differs from the reference: " +
                                         (k < s.source.size() && k < want.size() ? difference(exp, got, offset)
                                          : k < want.size() ? "expected " + excerpt(exp) + ", found nothing"
                                                            : "expected nothing, found " + excerpt(got)));
        break;
      }
    }
    auto run = run_strategy(*m_made, s.strategy);
    if (!run) {
      m_r.error(s.heading_line, "section '" + label + "': " + run.error().message);
      return;
    }
    auto add = [&](std::size_t line, std::string check, std::string column, std::string page, std::string computed) {
      m_out->disagreements.push_back(Disagreement{m_made->id, m_where + ":" + std::to_string(line), s.strategy,
                                                  std::move(check), std::move(column), std::move(page),
                                                  std::move(computed), line});
    };
    if (run->exit_status() != s.exit_status)
      add(s.source_line, "", "Exit", std::to_string(s.exit_status), std::to_string(run->exit_status()));
    const std::string table = observation_table(*m_made, *run);  // the views below point into it
    std::vector<std::string_view> computed = split_lines(table);
    computed.erase(computed.begin(), computed.begin() + 2);  // header and rule
    computed.pop_back();                                     // after the final '\n'
    if (computed.size() != s.rows.size())
      add(s.rows_line, "", "Rows", std::to_string(s.rows.size()) + " rows", std::to_string(computed.size()) + " rows");
    static const char* k_columns[] = {"Boundary fixture", "Actual", "Expected", "Outcome"};
    for (std::size_t k = 0; k < std::min(computed.size(), s.rows.size()); ++k) {
      if (computed[k] == s.rows[k]) continue;
      std::vector<std::string> pc = row_cells(s.rows[k]), cc = row_cells(computed[k]);
      const std::string& check = m_made->fixtures[k].label;
      if (pc.size() != 4 || cc.size() != 4) {
        add(s.rows_line + k, check, "Row", "'" + std::string(s.rows[k]) + "'", "'" + std::string(computed[k]) + "'");
        continue;
      }
      for (std::size_t col = 0; col < 4; ++col)
        if (pc[col] != cc[col]) add(s.rows_line + k, check, k_columns[col], pc[col], cc[col]);
    }
  }

  std::string m_where;
  PageReading* m_out;
  ProblemSink& m_errors;
  std::size_t m_before;  // problems before this page's
  PageReader m_r;
  Case m_c;  // as read, before the mechanism makes it
  const Mechanism* m_mech = nullptr;
  std::vector<RawSection> m_sections;
  Bindings m_params;
  std::optional<Case> m_made;
};

}  // namespace

bool read_page(std::string_view text_in, const std::string& where, PageReading* out, ProblemSink errors) {
  auto unmarked = skip_file_bom(text_in, where);
  if (!unmarked) {
    errors.add(input_problem(where, 1, "", std::string(k_second_bom)));
    return false;
  }
  std::string_view text = *unmarked;
  if (std::size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    auto [line, column] = text_line_col(text, bad);
    InputProblem p =
        input_problem(where, line, "", "invalid UTF-8 (the byte " + quote_excerpt(text.substr(bad, 1), 1) + ")");
    p.column = column;
    errors.add(std::move(p));
    return false;
  }
  return PageParser(text, where, out, errors).run();
}

}  // namespace failmap
