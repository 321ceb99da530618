#include "io/site.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <map>
#include <mutex>
#include <set>

#include <mstch/mstch.hpp>

#include "core/split.h"
#include "encoding/control_chars.h"
#include "encoding/embedded.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "io/page.h"

namespace failmap {
namespace {

constexpr std::string_view k_site_title = "Failure Map archive";

// Renders the embedded template `name` with the partials every page uses.
// mstch escapes each {{value}} through mstch::config::escape, set once here
// to site_html_escape (its own escaping leaves control characters as they are).
std::string render(std::string_view name, const mstch::map& context) {
  static std::once_flag once;
  std::call_once(once, [] { mstch::config::escape = [](const std::string& s) { return site_html_escape(s); }; });
  static const std::map<std::string, std::string> partials = {
      {"head", std::string(embedded_file("site-head.mustache"))},
      {"foot", std::string(embedded_file("site-foot.mustache"))},
      {"cases_table", std::string(embedded_file("site-cases-table.mustache"))},
      {"prose", std::string(embedded_file("site-prose.mustache"))},
  };
  return mstch::render(std::string(embedded_file(name)), context, partials);
}

// The context every page's head and foot read. `title` "" (the index):
// the page is titled by the site's name alone. `leaderboard`: the site has
// leaderboard.html, which the navigation links.
mstch::map page_context(std::string title, Tier tier, bool leaderboard) {
  const bool has_title = !title.empty();
  return mstch::map{{"page_title", std::move(title)},
                    {"has_page_title", has_title},
                    {"site_title", std::string(k_site_title)},
                    {"leaderboard", leaderboard},
                    {"tier_label", std::string(tier == Tier::Open ? "Open access" : "Member access")}};
}

std::string mechanism_path(std::string_view id) { return "mechanism-" + std::string(id) + ".html"; }

// The words a page's numbered section gives a strategy: "failure", "unsuccessful fix", "repair".
std::string strategy_words(StrategyKind k) {
  std::string_view t = page_section_title(k);
  return std::string(t.substr(t.find(" / The ") + 7));
}

std::string two_digits(int n) { return (n < 10 && n >= 0 ? "0" : "") + std::to_string(n); }

mstch::map prose_context(const CaseProse& p) {
  return mstch::map{{"summary", p.summary},   {"root_cause", p.root_cause},
                    {"failure", p.failure},   {"unsuccessful_approach", p.unsuccessful_approach},
                    {"contract", p.contract}, {"why_it_matters", p.why_it_matters},
                    {"scope", p.scope}};
}

mstch::array run_outcomes(const SiteCaseSummary& s) {
  mstch::array out;
  for (const SiteRunOutcome& r : s.runs) {
    std::string text = strategy_words(r.strategy) + " ";
    text += !r.recorded ? "not recorded"
            : r.checks  ? std::to_string(r.passed) + "/" + std::to_string(r.checks) + " passed"
                        : "exit " + std::to_string(r.exit_status);
    out.push_back(mstch::map{{"text", text},
                             {"state", std::string(!r.recorded     ? "none"
                                                   : r.exit_status ? "failed"
                                                                   : "passed")}});
  }
  return out;
}

mstch::map case_row(const SiteCaseSummary& s) {
  return mstch::map{{"href", site_case_path(s.id)},
                    {"id", s.id},
                    {"variant", two_digits(s.variant)},
                    {"title", s.title},
                    {"tier", std::string(s.tier == Tier::Open ? "open" : "member")},
                    {"outcomes", run_outcomes(s)}};
}

// What the mechanism pages and the units page share: the archive's
// mechanisms, their cases, their evaluation_group tags and the split units.
struct ArchiveMap {
  std::map<std::string, std::vector<const SiteCaseSummary*>> cases;  // by mechanism id
  std::map<std::string, std::set<std::string>> tags;                 // mechanism id -> tags of its cases
  std::map<std::string, std::set<std::string>> carriers;             // tag -> mechanism ids
  Partition units;
  std::map<std::string, std::uint32_t> unit_of;  // mechanism id -> unit (a mechanism's cases share one)
};

Result<ArchiveMap> archive_map(const std::vector<SiteCaseSummary>& cases) {
  ArchiveMap a;
  UnitBuilder builder(static_cast<std::uint32_t>(cases.size()));
  for (std::uint32_t i = 0; i < cases.size(); ++i) {
    const SiteCaseSummary& s = cases[i];
    a.cases[s.mechanism].push_back(&s);
    for (const std::string& t : s.evaluation_group) {
      a.tags[s.mechanism].insert(t);
      a.carriers[t].insert(s.mechanism);
    }
    Case links;  // what link_case reads: the mechanism and the tags
    links.mechanism = s.mechanism;
    links.evaluation_group = s.evaluation_group;
    link_case(builder, i, links);
  }
  FAILMAP_TRY_ASSIGN(a.units, std::move(builder).build());
  for (std::uint32_t i = 0; i < cases.size(); ++i) a.unit_of[cases[i].mechanism] = a.units.unit_of[i];
  // A mechanism's cases in variant order, as its pages number them (ids break ties).
  for (auto& [id, list] : a.cases)
    std::stable_sort(list.begin(), list.end(),
                     [](const SiteCaseSummary* x, const SiteCaseSummary* y) { return x->variant < y->variant; });
  return a;
}

std::string unit_anchor(std::uint32_t unit) { return "unit-" + std::to_string(unit + 1); }

std::string mechanism_title(const std::string& id) {
  const Mechanism* m = find_mechanism(id);
  return m ? std::string(m->title) : id;
}

mstch::map mechanism_link(const std::string& id, bool first = true) {
  return mstch::map{{"href", mechanism_path(id)},
                    {"title", mechanism_title(id)},
                    {"id", id},
                    {"sep", std::string(first ? "" : ", ")}};
}

std::string index_page(const std::vector<SiteCaseSummary>& cases, const ArchiveMap& a, Tier tier, bool leaderboard) {
  std::size_t open = 0;
  for (const SiteCaseSummary& s : cases) open += s.tier == Tier::Open;
  mstch::array mechanisms;
  for (const auto& [id, list] : a.cases) {
    mstch::array rows;
    for (const SiteCaseSummary* s : list) rows.push_back(case_row(*s));
    mstch::map m = mechanism_link(id);
    m.emplace("count", std::to_string(list.size()));
    m.emplace("cases", std::move(rows));
    mechanisms.push_back(std::move(m));
  }
  mstch::map ctx = page_context("", tier, leaderboard);
  ctx.emplace("cases", std::to_string(cases.size()));
  ctx.emplace("mechanism_count", std::to_string(a.cases.size()));
  ctx.emplace("unit_count", std::to_string(a.units.unit_count()));
  ctx.emplace("open_cases", std::to_string(open));
  ctx.emplace("member_cases", std::to_string(cases.size() - open));
  ctx.emplace("open_tier", tier == Tier::Open);
  ctx.emplace("mechanisms", std::move(mechanisms));
  return render("site-index.mustache", ctx);
}

std::string mechanism_page(const Mechanism& m, const ArchiveMap& a, Tier tier, bool leaderboard) {
  const std::string id(m.id);
  mstch::array rows, groups, related;
  for (const SiteCaseSummary* s : a.cases.at(id)) rows.push_back(case_row(*s));
  std::set<std::string> others;
  for (const std::string& t : a.tags.count(id) ? a.tags.at(id) : std::set<std::string>{}) {
    mstch::array shared;
    for (const std::string& other : a.carriers.at(t))
      if (other != id) {
        shared.push_back(mechanism_link(other, shared.empty()));
        others.insert(other);
      }
    bool has_shared = !shared.empty();
    groups.push_back(mstch::map{{"tag", t}, {"shared", std::move(shared)}, {"has_shared", has_shared}});
  }
  for (const std::string& other : others) related.push_back(mechanism_link(other));
  CaseProse prose{std::string(m.prose.summary),  std::string(m.prose.root_cause),
                  std::string(m.prose.failure),  std::string(m.prose.unsuccessful_approach),
                  std::string(m.prose.contract), std::string(m.prose.why_it_matters),
                  std::string(m.prose.scope)};
  mstch::map ctx = page_context(std::string(m.title), tier, leaderboard);
  ctx.emplace("id", id);
  ctx.emplace("title", std::string(m.title));
  ctx.emplace("source", std::string(m.source));
  // A link only to a web address: the bug report or fix it is grounded in.
  const std::string_view source = m.source;
  ctx.emplace("source_is_link", source.starts_with("https://") || source.starts_with("http://"));
  ctx.emplace("case_title", std::string(m.prose.case_title));
  ctx.emplace("prose", prose_context(prose));
  ctx.emplace("count", std::to_string(a.cases.at(id).size()));
  ctx.emplace("cases", std::move(rows));
  ctx.emplace("groups", std::move(groups));
  ctx.emplace("has_related", !related.empty());
  ctx.emplace("related", std::move(related));
  std::uint32_t unit = a.unit_of.at(id);
  ctx.emplace("unit_href", "units.html#" + unit_anchor(unit));
  ctx.emplace("unit_key", a.units.unit_keys[unit]);
  return render("site-mechanism.mustache", ctx);
}

std::string units_page(const ArchiveMap& a, Tier tier, bool leaderboard) {
  std::vector<std::vector<std::string>> members(a.units.unit_count());
  for (const auto& [id, unit] : a.unit_of) members[unit].push_back(id);  // ids in order
  mstch::array units;
  for (std::uint32_t u = 0; u < a.units.unit_count(); ++u) {
    mstch::array mechanisms, ties;
    std::set<std::string> tags;
    for (const std::string& id : members[u]) {
      mstch::map m = mechanism_link(id);
      m.emplace("count", std::to_string(a.cases.at(id).size()));
      mechanisms.push_back(std::move(m));
      if (a.tags.count(id)) tags.insert(a.tags.at(id).begin(), a.tags.at(id).end());
    }
    for (const std::string& t : tags) {
      const std::set<std::string>& by = a.carriers.at(t);
      if (by.size() < 2) continue;  // a tag of one mechanism ties nothing to it
      mstch::array carriers;
      for (const std::string& id : by) carriers.push_back(mechanism_link(id, carriers.empty()));
      ties.push_back(mstch::map{{"tag", t}, {"carriers", std::move(carriers)}});
    }
    bool alone = members[u].size() == 1;
    units.push_back(mstch::map{{"anchor", unit_anchor(u)},
                               {"key", a.units.unit_keys[u]},
                               {"size", std::to_string(a.units.unit_sizes[u])},
                               {"mechanisms", std::move(mechanisms)},
                               {"ties", std::move(ties)},
                               {"alone", alone}});
  }
  mstch::map ctx = page_context("Split units", tier, leaderboard);
  ctx.emplace("unit_count", std::to_string(a.units.unit_count()));
  ctx.emplace("units", std::move(units));
  return render("site-units.mustache", ctx);
}

// ---------------------------------------------------------------------------
// The leaderboard

// A rate as the leaderboard prints it: three decimals.
std::string rate_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string interval_text(const ScoreInterval& i) { return "[" + rate_text(i.low) + ", " + rate_text(i.high) + "]"; }

// A number of SVG user units: at most two decimals, no trailing zeros.
std::string svg_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::optional<double> pass_at_1(const ModelScore& s) {
  if (!s.pass_at_k.empty() && s.pass_at_k.front().first == 1) return s.pass_at_k.front().second;
  return std::nullopt;
}

// The per-mechanism bar chart of one model's grading: pass@1 per mechanism
// as a bar on a 0..1 axis, its 95% interval as a whisker where the grading
// gives one. Static SVG: shapes and text only (every text escaped), styled
// by classes of site.css with presentation attributes as the fallback.
std::string mechanism_chart(const ModelScore& s, const std::string& caption_id) {
  constexpr double k_width = 640, k_bar = 540, k_row = 30, k_top = 6, k_axis = 22;
  const double height = k_top + k_row * static_cast<double>(s.mechanisms.size()) + k_axis;
  std::string svg = "<svg class=\"chart\" viewBox=\"0 0 " + svg_number(k_width) + " " + svg_number(height) +
                    "\" role=\"img\" aria-labelledby=\"" + caption_id + "\">\n";
  const double bottom = height - k_axis + 4;
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const std::string x = svg_number(t * k_bar + 1);
    svg += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + svg_number(k_top) + "\" x2=\"" + x + "\" y2=\"" +
           svg_number(bottom) + "\" stroke=\"#ddd6ca\"/>\n";
    svg += "<text class=\"tick\" x=\"" + x + "\" y=\"" + svg_number(bottom + 14) + "\" text-anchor=\"" +
           (t == 0.0   ? "start"
            : t == 1.0 ? "end"
                       : "middle") +
           "\">" + rate_text(t).substr(0, t == 1.0 ? 3 : 4) + "</text>\n";
  }
  for (std::size_t i = 0; i < s.mechanisms.size(); ++i) {
    const MechanismScore& m = s.mechanisms[i];
    const double y = k_top + k_row * static_cast<double>(i);
    const double value = m.pass_at_1.value_or(
        m.predictions ? static_cast<double>(m.resolved) / static_cast<double>(m.predictions) : 0.0);
    svg += "<text class=\"label\" x=\"1\" y=\"" + svg_number(y + 11) + "\">" + site_html_escape(mechanism_title(m.id)) +
           " (" + std::to_string(m.cases) + " case(s))</text>\n";
    svg += "<rect class=\"track\" x=\"1\" y=\"" + svg_number(y + 15) + "\" width=\"" + svg_number(k_bar) +
           "\" height=\"9\" fill=\"#f2eee5\"/>\n";
    svg += "<rect class=\"bar\" x=\"1\" y=\"" + svg_number(y + 15) + "\" width=\"" + svg_number(value * k_bar) +
           "\" height=\"9\" fill=\"#7a2e1f\"/>\n";
    if (m.interval) {
      const std::string lo = svg_number(m.interval->low * k_bar + 1), hi = svg_number(m.interval->high * k_bar + 1);
      const std::string mid = svg_number(y + 19.5), top = svg_number(y + 13), low_end = svg_number(y + 26);
      svg += "<path class=\"whisker\" d=\"M" + lo + " " + mid + "H" + hi + "M" + lo + " " + top + "V" + low_end + "M" +
             hi + " " + top + "V" + low_end + "\" stroke=\"#1f1d1a\" fill=\"none\"/>\n";
    }
    svg += "<text class=\"value\" x=\"" + svg_number(k_bar + 8) + "\" y=\"" + svg_number(y + 24) + "\">" +
           (m.pass_at_1 ? rate_text(*m.pass_at_1) : std::string("-")) + "</text>\n";
  }
  svg += "</svg>";
  return svg;
}

Result<std::string> leaderboard_page(const std::vector<ModelScore>& scores, Tier tier) {
  std::map<std::string, std::vector<const ModelScore*>> by_split;
  for (const ModelScore& s : scores) by_split[s.split].push_back(&s);
  mstch::array splits;
  std::size_t split_index = 0;
  for (auto& [split, list] : by_split) {
    ++split_index;
    std::stable_sort(list.begin(), list.end(), [](const ModelScore* a, const ModelScore* b) {
      auto pa = pass_at_1(*a), pb = pass_at_1(*b);
      if (pa.has_value() != pb.has_value()) return pa.has_value();
      if (pa && *pa != *pb) return *pa > *pb;
      return a->model < b->model;
    });
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i]->model == list[i - 1]->model)
        return input_error("model " + dump_compact(Json(list[i]->model)) + " is graded twice on " +
                           (split.empty() ? std::string("the cases of no split") : "split '" + split + "'") + ": in " +
                           list[i - 1]->folder + " and in " + list[i]->folder + " (name one grading of it)");
    mstch::array rows;
    for (std::size_t r = 0; r < list.size(); ++r) {
      const ModelScore& s = *list[r];
      const std::string anchor = "split-" + std::to_string(split_index) + "-model-" + std::to_string(r + 1);
      auto p1 = pass_at_1(s);
      auto iv = s.pass_at_k_interval.find(1);
      mstch::array more;
      for (const auto& [k, v] : s.pass_at_k) {
        if (k == 1) continue;
        auto kiv = s.pass_at_k_interval.find(k);
        more.push_back(mstch::map{
            {"k", std::to_string(k)},
            {"value", rate_text(v)},
            {"interval", kiv == s.pass_at_k_interval.end() ? std::string() : " " + interval_text(kiv->second)}});
      }
      const bool has_more = !more.empty();
      rows.push_back(mstch::map{
          {"anchor", anchor},
          {"caption_id", anchor + "-caption"},
          {"model", site_visible_name(s.model)},
          {"cases", std::to_string(s.cases)},
          {"coverage", s.coverage ? std::to_string(s.coverage->first) + " of " + std::to_string(s.coverage->second)
                                  : std::string("-")},
          {"predictions", std::to_string(s.predictions)},
          {"resolved", std::to_string(s.resolved)},
          {"rate", s.predictions ? rate_text(static_cast<double>(s.resolved) / static_cast<double>(s.predictions))
                                 : std::string("-")},
          {"pass1", p1 ? rate_text(*p1) : std::string("-")},
          {"interval", iv == s.pass_at_k_interval.end() ? std::string("-") : interval_text(iv->second)},
          {"more", std::move(more)},
          {"has_more", has_more},
          {"held_out",
           s.held_out ? std::to_string(s.held_out_resolved) + " of " + std::to_string(s.resolved) : std::string("-")},
          {"has_chart", !s.mechanisms.empty()},
          {"chart", mechanism_chart(s, anchor + "-caption")},
          {"mechanism_count", std::to_string(s.mechanisms.size())},
      });
    }
    splits.push_back(mstch::map{{"anchor", "split-" + std::to_string(split_index)},
                                {"named", !split.empty()},
                                {"split", split},
                                {"model_count", std::to_string(list.size())},
                                {"rows", std::move(rows)}});
  }
  mstch::map ctx = page_context("Leaderboard", tier, true);
  ctx.emplace("grading_count", std::to_string(scores.size()));
  ctx.emplace("split_count", std::to_string(by_split.size()));
  ctx.emplace("splits", std::move(splits));
  return render("site-leaderboard.mustache", ctx);
}

}  // namespace

std::string site_visible_name(std::string_view name) {
  // Code points that show nothing (or mimic others) inside a name.
  auto invisible = [](char32_t c) {
    return (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) ||
           c == 0xFEFF || c == 0x00AD || c == 0x034F || c == 0x180E;
  };
  auto is_space = [](char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
  };
  // Decoded code points with their bytes (invalid UTF-8 is kept byte by byte).
  struct CodePoint {
    char32_t c;
    std::string_view bytes;
  };
  std::vector<CodePoint> units;
  for (std::size_t i = 0; i < name.size();) {
    const unsigned char b = static_cast<unsigned char>(name[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = n > 0 && i + n <= name.size();
    for (std::size_t k = 1; ok && k < n; ++k) {
      const unsigned char cb = static_cast<unsigned char>(name[i + k]);
      ok = (cb & 0xC0) == 0x80;
      c = (c << 6) | (cb & 0x3F);
    }
    if (!ok) n = 1, c = 0x110000;  // not UTF-8: shown as \ufffd
    units.push_back(CodePoint{c, name.substr(i, n)});
    i += n;
  }
  std::size_t first = 0, last = units.size();
  while (first < last && is_space(units[first].c)) ++first;
  while (last > first && is_space(units[last - 1].c)) --last;
  std::string out;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const CodePoint& u = units[i];
    // Inside a name only the plain space shows as itself: a tab, a line
    // break or a no-break space would show as one too.
    if (invisible(u.c) || u.c == 0x110000 || i < first || i >= last || (is_space(u.c) && u.c != ' ')) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u.c == 0x110000 ? 0xFFFD : u.c));
      out += buf;
    } else {
      out += u.bytes;
    }
  }
  return out;
}

std::string site_html_escape(std::string_view text) {
  std::string shown = escape_control_characters(text, /*keep_newlines=*/true);
  std::string out;
  out.reserve(shown.size() + shown.size() / 8);
  for (char c : shown) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string site_case_path(std::string_view case_id) { return "case-" + std::string(case_id) + ".html"; }

Result<std::string> site_case_page(const Case& c, Tier tier, bool leaderboard) {
  FAILMAP_TRY_ASSIGN(auto content, page_content(c, tier));
  const PageContent& p = content;
  mstch::array sections;
  for (const PageSection& s : p.sections) {
    mstch::array rows;
    for (std::size_t i = 0; i < s.run.actuals.size(); ++i) {
      bool passed = s.run.passed[i];
      rows.push_back(mstch::map{{"label", c.fixtures[i].label},
                                {"actual", python_json(s.run.actuals[i])},
                                {"expected", python_json(c.fixtures[i].expected)},
                                {"outcome", std::string(passed ? "Passed" : "Failed")},
                                {"state", std::string(passed ? "passed" : "failed")}});
    }
    sections.push_back(mstch::map{{"anchor", std::string(strategy_name(s.strategy))},
                                  {"heading", std::string(page_section_title(s.strategy))},
                                  {"exit", std::to_string(s.run.exit_status())},
                                  {"exit_state", std::string(s.run.exit_status() ? "failed" : "passed")},
                                  {"source", s.source},
                                  {"rows", std::move(rows)},
                                  {"digest", s.digest}});
  }
  mstch::map ctx = page_context(c.id + " · " + c.title, tier, leaderboard);
  ctx.emplace("id", c.id);
  ctx.emplace("mechanism_href", mechanism_path(c.mechanism));
  ctx.emplace("mechanism_title", std::string(p.mechanism->title));
  ctx.emplace("page_tier", std::string(p.tier_label));
  ctx.emplace("title", c.title);
  ctx.emplace("variant", p.variant);
  ctx.emplace("prose", prose_context(c.prose));
  ctx.emplace("sections", std::move(sections));
  if (!p.notice.empty()) {
    mstch::array body(p.notice.begin() + 1, p.notice.end() - 1);
    ctx.emplace("notice",
                mstch::map{{"heading", p.notice.front()}, {"body", std::move(body)}, {"sign_in", p.notice.back()}});
  }
  ctx.emplace("recorded", p.recorded);
  ctx.emplace("case_digest", p.case_digest);
  return render("site-case.mustache", ctx);
}

Result<std::vector<std::pair<std::string, std::string>>> site_archive_pages(const std::vector<SiteCaseSummary>& cases,
                                                                            Tier tier,
                                                                            const std::vector<ModelScore>& scores) {
  FAILMAP_TRY_ASSIGN(auto a, archive_map(cases));
  const bool leaderboard = !scores.empty();
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("index.html", index_page(cases, a, tier, leaderboard));
  for (const auto& [id, list] : a.cases) {
    const Mechanism* m = find_mechanism(id);
    if (!m) return input_error("mechanism '" + id + "' is not compiled into this failmap");
    out.emplace_back(mechanism_path(id), mechanism_page(*m, a, tier, leaderboard));
  }
  out.emplace_back("style.css", std::string(embedded_file("site.css")));
  out.emplace_back("units.html", units_page(a, tier, leaderboard));
  if (leaderboard) {
    FAILMAP_TRY_ASSIGN(auto page, leaderboard_page(scores, tier));
    out.emplace_back("leaderboard.html", std::move(page));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace failmap
