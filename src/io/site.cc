#include "io/site.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <mstch/mstch.hpp>

#include "core/split.h"
#include "io/bundle.h"
#include "io/control_chars.h"
#include "io/embedded.h"
#include "io/page.h"
#include "io/pyjson.h"

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

// The context every page's head and foot read.
mstch::map page_context(std::string title, Tier tier) {
  return mstch::map{{"page_title", std::move(title)},
                    {"site_title", std::string(k_site_title)},
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
  return mstch::map{{"summary", p.summary},       {"root_cause", p.root_cause},
                    {"failure", p.failure},       {"unsuccessful_approach", p.unsuccessful_approach},
                    {"contract", p.contract},     {"why_it_matters", p.why_it_matters},
                    {"scope", p.scope}};
}

mstch::array run_outcomes(const SiteCaseSummary& s) {
  mstch::array out;
  for (const SiteRunOutcome& r : s.runs) {
    std::string text = strategy_words(r.strategy) + " ";
    text += !r.recorded   ? "not recorded"
            : r.checks    ? std::to_string(r.passed) + "/" + std::to_string(r.checks) + " passed"
                          : "exit " + std::to_string(r.exit_status);
    out.push_back(mstch::map{{"text", text}, {"state", std::string(!r.recorded ? "none" : r.exit_status ? "failed" : "passed")}});
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
  auto units = std::move(builder).build();
  if (!units) return units.error();
  a.units = std::move(*units);
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

std::string index_page(const std::vector<SiteCaseSummary>& cases, const ArchiveMap& a, Tier tier) {
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
  mstch::map ctx = page_context(std::string(k_site_title), tier);
  ctx.emplace("cases", std::to_string(cases.size()));
  ctx.emplace("mechanism_count", std::to_string(a.cases.size()));
  ctx.emplace("unit_count", std::to_string(a.units.unit_count()));
  ctx.emplace("open_cases", std::to_string(open));
  ctx.emplace("member_cases", std::to_string(cases.size() - open));
  ctx.emplace("open_tier", tier == Tier::Open);
  ctx.emplace("mechanisms", std::move(mechanisms));
  return render("site-index.mustache", ctx);
}

std::string mechanism_page(const Mechanism& m, const ArchiveMap& a, Tier tier) {
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
  CaseProse prose{std::string(m.prose.summary),  std::string(m.prose.root_cause), std::string(m.prose.failure),
                  std::string(m.prose.unsuccessful_approach), std::string(m.prose.contract),
                  std::string(m.prose.why_it_matters), std::string(m.prose.scope)};
  mstch::map ctx = page_context(std::string(m.title), tier);
  ctx.emplace("id", id);
  ctx.emplace("title", std::string(m.title));
  ctx.emplace("source", std::string(m.source));
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

std::string units_page(const ArchiveMap& a, Tier tier) {
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
  mstch::map ctx = page_context("Split units", tier);
  ctx.emplace("unit_count", std::to_string(a.units.unit_count()));
  ctx.emplace("units", std::move(units));
  return render("site-units.mustache", ctx);
}

}  // namespace

std::string site_html_escape(std::string_view text) {
  std::string shown = escape_control_characters(text, /*keep_newlines=*/true);
  std::string out;
  out.reserve(shown.size() + shown.size() / 8);
  for (char c : shown) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string site_case_path(std::string_view case_id) { return "case-" + std::string(case_id) + ".html"; }

Result<std::string> site_case_page(const Case& c, Tier tier) {
  auto content = page_content(c, tier);
  if (!content) return content.error();
  const PageContent& p = *content;
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
  mstch::map ctx = page_context(c.id + " · " + c.title, tier);
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
    ctx.emplace("notice", mstch::map{{"heading", p.notice.front()}, {"body", std::move(body)}, {"sign_in", p.notice.back()}});
  }
  ctx.emplace("recorded", p.recorded);
  ctx.emplace("case_digest", p.case_digest);
  return render("site-case.mustache", ctx);
}

Result<std::vector<std::pair<std::string, std::string>>> site_archive_pages(const std::vector<SiteCaseSummary>& cases,
                                                                            Tier tier) {
  auto a = archive_map(cases);
  if (!a) return a.error();
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("index.html", index_page(cases, *a, tier));
  for (const auto& [id, list] : a->cases) {
    const Mechanism* m = find_mechanism(id);
    if (!m) return input_error("mechanism '" + id + "' is not compiled into this failmap");
    out.emplace_back(mechanism_path(id), mechanism_page(*m, *a, tier));
  }
  out.emplace_back("style.css", std::string(embedded_file("site.css")));
  out.emplace_back("units.html", units_page(*a, tier));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace failmap
