// failmap list; failmap show CASE
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/page.h"
#include "io/pyjson.h"

namespace failmap::cli {
namespace {

struct ListOptions {
  bool json = false;
  // Filters: a case is listed when it matches one value of each filter given.
  std::vector<std::string> mechanisms, tiers, groups;
};

// Checks the filter values (an unknown mechanism or tier is a typo, not an
// empty list) and drops the rows they do not match. An evaluation_group no
// compiled mechanism declares and no case carries is refused alike.
Status filter_rows(const ListOptions& o, const std::string& archive_path, std::vector<CaseSummary>& rows) {
  for (const std::string& m : o.mechanisms)
    if (!find_mechanism(m)) return input_error("--mechanism: unknown mechanism '" + m + "' (see `failmap mechanisms`)");
  std::vector<Tier> tiers;
  for (const std::string& t : o.tiers) {
    auto tier = parse_tier(t);
    if (!tier) return input_error("--tier: " + tier.error().message);
    tiers.push_back(*tier);
  }
  if (o.mechanisms.empty() && o.tiers.empty() && o.groups.empty()) return ok_status();
  std::vector<std::string> unseen_groups;
  for (const std::string& g : o.groups) {
    bool declared = false;
    for (const Mechanism* m : all_mechanisms())
      declared =
          declared || std::find(m->evaluation_group.begin(), m->evaluation_group.end(), g) != m->evaluation_group.end();
    if (!declared) unseen_groups.push_back(g);
  }
  auto any_of = [](const auto& values, const auto& v) {
    return values.empty() || std::find(values.begin(), values.end(), v) != values.end();
  };
  std::vector<CaseSummary> kept;
  for (CaseSummary& s : rows) {
    bool group_match = o.groups.empty();
    if (!o.groups.empty()) {
      auto tags = parse_json_strict(s.evaluation_group, archive_path + ": case " + s.id + ", field evaluation_group");
      if (!tags) return tags.error();
      if (!tags->is_array())
        return input_error(archive_path + ": case " + s.id +
                           ", field evaluation_group: expected a JSON array of strings");
      for (const Json& t : *tags) {
        if (!t.is_string())
          return input_error(archive_path + ": case " + s.id +
                             ", field evaluation_group: expected a JSON array of strings");
        const std::string& tag = t.get_ref<const std::string&>();
        std::erase(unseen_groups, tag);
        group_match = group_match || any_of(o.groups, tag);
      }
    }
    if (group_match && any_of(o.mechanisms, s.mechanism) && any_of(tiers, s.tier)) kept.push_back(std::move(s));
  }
  if (!unseen_groups.empty())
    return input_error("--group: no mechanism declares evaluation_group '" + unseen_groups.front() +
                       "' and no case of " + archive_path + " carries it (see `failmap mechanisms`)");
  rows = std::move(kept);
  return ok_status();
}

int run_list(Context& ctx, const ListOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto rows = archive->list_cases();
  if (!rows) return report(rows.error());
  if (Status st = filter_rows(o, archive->db().path(), *rows); !st) return report(st.error());
  // A binding is listed only when it obeys the binding rule, as every other
  // command reads it (a JSON number cannot hold every stored text:
  // 1.0000000000000000001 would print as 1.0), and refused otherwise.
  // Nothing is printed before every row is checked: an error leaves stdout
  // empty.
  std::vector<Json> bindings;
  bindings.reserve(rows->size());
  for (const CaseSummary& s : *rows) {
    Case c;
    c.mechanism = s.mechanism;
    if (auto st = decode_stored_params(s.params, c, archive->db().path() + ": case " + s.id); !st)
      return report(st.error());
    Json j = Json::object();
    for (const auto& [name, value] : c.params) j[name] = value_to_json(value);
    bindings.push_back(std::move(j));
  }
  if (o.json) {
    std::string out;
    for (std::size_t i = 0; i < rows->size(); ++i) {
      const CaseSummary& s = (*rows)[i];
      Json j{{"id", s.id},
             {"mechanism", s.mechanism},
             {"variant", s.variant},
             {"title", s.title},
             {"case_tier", std::string(tier_name(s.tier))},
             {"params", std::move(bindings[i])},
             {"runs", s.runs}};
      out += dump_compact(j) + "\n";
    }
    std::cout << out;
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  // Columns as wide as their longest value plus two spaces: ids from
  // `instantiate` run to 40 characters and must not touch the next column.
  std::size_t w_id = 10, w_mech = 38, w_var = 4, w_params = 10;  // at least the widths of 12/40/6/12
  for (const CaseSummary& s : *rows) {
    w_id = std::max(w_id, s.id.size());
    w_mech = std::max(w_mech, s.mechanism.size());
    w_var = std::max(w_var, std::to_string(s.variant).size());
    w_params = std::max(w_params, s.params.size());
  }
  auto col = [](std::size_t w) { return std::setw(static_cast<int>(w + 2)); };
  std::cout << std::left << col(w_id) << "CASE" << col(w_mech) << "MECHANISM" << col(w_var) << "VAR" << col(6) << "TIER"
            << col(w_params) << "BINDING"
            << "RUNS\n";
  std::vector<std::string> mechs;
  for (const CaseSummary& s : *rows) {
    std::cout << std::left << col(w_id) << s.id << col(w_mech) << s.mechanism << col(w_var) << s.variant << col(6)
              << tier_name(s.tier) << col(w_params) << s.params << s.runs << "\n";
    if (std::find(mechs.begin(), mechs.end(), s.mechanism) == mechs.end()) mechs.push_back(s.mechanism);
  }
  std::cout << rows->size() << " case(s) of " << mechs.size() << " mechanism(s)\n";
  return k_exit_ok;
}

struct ShowOptions {
  std::string id;
  bool json = false;
};

int run_show(Context& ctx, const ShowOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto c = require_case(*archive, o.id);
  if (!c) return report(c.error());
  auto runs = archive->load_runs(o.id);
  if (!runs) return report(runs.error());
  // Cells where the published page said otherwise than the computation, kept by `import --force`.
  auto disagreements = archive->disagreements(o.id);
  if (!disagreements) return report(disagreements.error());
  if (o.json) {
    Json j = case_to_json(*c);
    Json rj = Json::array();
    for (const RunRecord& r : *runs)
      rj.push_back(Json{{"strategy", std::string(strategy_name(r.strategy))},
                        {"exit_status", r.exit_status},
                        {"digest", r.digest},
                        {"failmap_version", r.failmap_version},
                        {"recorded_at", r.recorded_at}});
    j["runs"] = rj;
    Json dj = Json::array();
    for (const Disagreement& d : *disagreements)
      dj.push_back(Json{{"source", d.source},
                        {"strategy", std::string(strategy_name(d.strategy))},
                        {"check", d.check},
                        {"column", d.column},
                        {"page_value", d.page_value},
                        {"computed_value", d.computed_value}});
    j["import_disagreements"] = dj;
    const Mechanism* m = find_mechanism(c->mechanism);
    j["mechanism_source"] = m ? Json(std::string(m->source)) : Json(nullptr);
    std::cout << j.dump(2) << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  const Mechanism* m = find_mechanism(c->mechanism);
  std::cout << c->id << " / " << (m ? m->title : c->mechanism) << " / " << tier_name(c->tier) << " tier\n";
  std::cout << c->title << " · case " << (c->variant < 10 ? "0" : "") << c->variant << "\n\n";
  std::cout << "mechanism:        " << c->mechanism << "\n";
  if (m && !m->source.empty()) std::cout << "source:           " << m->source << "\n";
  std::cout << "evaluation_group: ";
  for (std::size_t i = 0; i < c->evaluation_group.size(); ++i) std::cout << (i ? ", " : "") << c->evaluation_group[i];
  std::cout << "\nbinding:          ";
  for (std::size_t i = 0; i < c->params.size(); ++i)
    std::cout << (i ? ", " : "") << c->params[i].first << " = " << python_repr(c->params[i].second);
  std::cout << "\n\nROOT CAUSE\n"
            << c->prose.root_cause << "\nUnsuccessful approach: " << c->prose.unsuccessful_approach
            << "\nCase contract\n"
            << c->prose.contract << "\n\nFixtures\n";
  for (const Fixture& f : c->fixtures) {
    std::string args;
    for (std::size_t i = 0; i < f.args.size(); ++i) args += (i ? ", " : "") + python_repr(f.args[i]);
    std::cout << "  " << f.label << ": solve(" << args << ") == " << python_repr(f.expected) << "\n";
  }
  std::cout << "\nRecorded runs\n";
  if (runs->empty()) std::cout << "  none (failmap run " << c->id << ")\n";
  for (const RunRecord& r : *runs)
    std::cout << "  " << std::left << std::setw(13) << strategy_name(r.strategy) << "exit " << r.exit_status << "  "
              << r.digest << "  " << r.recorded_at << "\n";
  for (const PublishedRun& p : c->published.runs)
    std::cout << "  published " << strategy_name(p.strategy) << ": Exit " << p.exit_status << ", SHA-256 / " << p.digest
              << "\n";
  if (!c->published.case_digest.empty()) std::cout << "  published case digest: " << c->published.case_digest << "\n";
  if (!disagreements->empty()) {
    std::cout << "\nImported with --force over " << disagreements->size() << " disagreement(s) with the page\n";
    for (const Disagreement& d : *disagreements) std::cout << "  " << describe(d) << "\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_list(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ListOptions>();
  sub.add_flag("--json", o->json, "one JSON object per case (JSON Lines)");
  sub.add_option("--mechanism", o->mechanisms, "only cases of this mechanism id (repeatable: any of them)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("--tier", o->tiers, "only cases of this access tier, open or member (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("--group", o->groups,
                 "only cases carrying this evaluation_group tag (repeatable: any of them); filters combine: a case "
                 "is listed when it matches each filter given")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.callback([&ctx, o] { ctx.exit_status = run_list(ctx, *o); });
}

void setup_show(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ShowOptions>();
  sub.add_option("case", o->id, "case id, e.g. FA-98921")->required();
  sub.add_flag("--json", o->json, "the case record and its runs as JSON");
  sub.callback([&ctx, o] { ctx.exit_status = run_show(ctx, *o); });
}

}  // namespace failmap::cli
