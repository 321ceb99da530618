// failmap list [--json] [--mechanism M] [--tier T] [--group G]
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"

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
      FAILMAP_TRY_ASSIGN(auto tags, parse_json_strict(s.evaluation_group,
                                                      archive_path + ": case " + s.id + ", field evaluation_group"));
      if (!tags.is_array())
        return input_error(archive_path + ": case " + s.id +
                           ", field evaluation_group: expected a JSON array of strings");
      for (const Json& t : tags) {
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

}  // namespace failmap::cli
