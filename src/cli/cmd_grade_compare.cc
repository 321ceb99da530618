// failmap grade compare DIR --models A,B [--json]
// failmap grade forget (--case ID... | --stale | --all) [--json]
//
// compare: the paired comparison of two models of one grading folder
// (schema/GRADING.md "Comparing two models", src/grade/stats.h). forget: drops
// records of the archive's record of gradings (schema/GRADING.md "Recording").
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "cli/common.h"
#include "encoding/jsonl.h"
#include "grade/grader.h"
#include "grade/stats.h"
#include "io/hashed_folder.h"
#include "io/model_name.h"
#include "store/gradings.h"

namespace failmap::cli {
namespace {

struct CompareOptions {
  std::string dir;
  std::string models;
  bool json = false;
};

std::string number(double v) { return dump_compact(Json(v)); }

int run_compare(Context& ctx, const CompareOptions& o) {
  // The two names, in NFC as grade counts them.
  auto comma = o.models.find(',');
  if (comma == std::string::npos || o.models.find(',', comma + 1) != std::string::npos)
    return report(input_error("--models: expected two model names as A,B, got '" + o.models + "'"));
  std::string names[2] = {o.models.substr(0, comma), o.models.substr(comma + 1)};
  for (std::string& n : names) {
    auto normal = normalize_model_name(n);
    if (!normal) return report(input_error("--models: '" + n + "': " + normal.error().message));
    n = *normal;
  }
  if (names[0] == names[1])
    return report(input_error("--models: name two different models, got '" + names[0] + "' twice"));
  if (auto s = verify_sums(o.dir, "failmap-grading"); !s) return report(s.error());
  const std::string file = (std::filesystem::path(o.dir) / "results.jsonl").string();
  auto reader = JsonlLines::open(file, k_max_result_line_bytes);
  if (!reader) return report(reader.error());
  // Per model: case id → (samples, resolved samples).
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_case[2];
  std::set<std::string> seen_models;
  JsonlLines::Item item;
  while (reader->next(&item)) {
    if (!item.problem.empty()) return report(input_error(item.problem));
    auto j = parse_jsonl_line(item.text, file, item.line);
    if (!j) return report(j.error());
    std::string model, case_id, verdict;
    try {
      model = j->at("model").get<std::string>();
      case_id = j->at("case").get<std::string>();
      verdict = j->at("verdict").get<std::string>();
    } catch (const std::exception&) {
      return report(input_error(file + ":" + std::to_string(item.line) +
                                ": not a results line of failmap grade (case, model, verdict)"));
    }
    seen_models.insert(model);
    for (int m = 0; m < 2; ++m)
      if (model == names[m]) {
        auto& nc = per_case[m][case_id];
        ++nc.first;
        nc.second += verdict == "resolved" ? 1 : 0;
      }
  }
  for (int m = 0; m < 2; ++m)
    if (per_case[m].empty()) {
      std::string known;
      for (const auto& n : seen_models) known += (known.empty() ? "" : ", ") + dump_compact(Json(n));
      return report(input_error("--models: " + file + " has no line of model " + dump_compact(Json(names[m])) +
                                " (it has: " + known + ")"));
    }
  std::vector<std::string> both;
  for (const auto& [id, nc] : per_case[0])
    if (per_case[1].count(id)) both.push_back(id);
  if (both.empty())
    return report(input_error(dump_compact(Json(names[0])) + " and " + dump_compact(Json(names[1])) +
                              " attempted no case in common in " + file));
  // The units of the cases both attempted, from the archive's cases.
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  std::vector<Case> loaded;
  loaded.reserve(both.size());
  for (const std::string& id : both) {
    auto c = archive->load_case(id);
    if (!c) return report(c.error());
    if (!*c)
      return report(
          input_error("no case " + id + " in " + archive->db().path() +
                      ": compare forms units from the archive's cases; name the archive that was graded (--db)"));
    loaded.push_back(std::move(**c));
  }
  std::vector<const Case*> members;
  for (const Case& c : loaded) members.push_back(&c);
  Partition units = case_units(members, UnitLinks::MechanismAndGroups);
  std::vector<std::size_t> order(both.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return units.unit_of[a] < units.unit_of[b]; });
  std::vector<PairedCase> paired;
  double rate_sum[2] = {0.0, 0.0};
  for (std::size_t i = 0; i < both.size(); ++i)
    for (int m = 0; m < 2; ++m) {
      const auto& nc = per_case[m].at(both[i]);
      rate_sum[m] += static_cast<double>(nc.second) / static_cast<double>(nc.first);
    }
  for (std::size_t i : order) {
    const auto& a = per_case[0].at(both[i]);
    const auto& b = per_case[1].at(both[i]);
    paired.push_back(PairedCase{units.unit_of[i], static_cast<double>(a.second) / static_cast<double>(a.first),
                                static_cast<double>(b.second) / static_cast<double>(b.first)});
  }
  const std::string scope = "compare:" + names[0] + std::string(1, '\0') + names[1];
  auto r = paired_comparison(paired, units.unit_count(), scope, 0);
  if (!r) return report(r.error());
  const double rate[2] = {rate_sum[0] / static_cast<double>(both.size()),
                          rate_sum[1] / static_cast<double>(both.size())};
  if (o.json) {
    Json j = Json::object();
    j["models"] = Json::array({names[0], names[1]});
    j["cases"] = r->cases;
    j["cases_a"] = per_case[0].size();
    j["cases_b"] = per_case[1].size();
    j["units"] = r->units;
    j["resolved_rate"] = Json::array({rate[0], rate[1]});
    j["difference"] = r->difference;
    j["interval"] = r->interval ? Json::array({r->interval->low, r->interval->high}) : Json(nullptr);
    j["p_value"] = r->p_value;
    j["permutation"] = Json{{"exact", r->exact}, {"patterns", r->permutations}};
    j["seed"] = 0;
    std::cout << dump_compact(j) << "\n";
    return k_exit_ok;
  }
  const std::string a = terminal_safe(names[0]), b = terminal_safe(names[1]);
  std::cout << "compared " << a << " (A) and " << b << " (B) over the " << r->cases << " case(s) both attempted ("
            << per_case[0].size() << " and " << per_case[1].size() << " attempted), in " << r->units << " unit(s)\n";
  std::cout << "resolved rate: A " << number(rate[0]) << ", B " << number(rate[1]) << "\n";
  std::cout << "difference A - B: " << number(r->difference) << ", 95% interval "
            << (r->interval ? "[" + number(r->interval->low) + ", " + number(r->interval->high) + "]"
                            : std::string("none (fewer than 2 units)"))
            << " (bootstrap over units)\n";
  std::cout << "paired sign-flip permutation test over units: p = " << number(r->p_value) << " ("
            << (r->exact ? "all " + std::to_string(r->permutations) + " sign patterns"
                         : std::to_string(r->permutations) + " random sign patterns")
            << ")\n";
  return k_exit_ok;
}

struct ForgetOptions {
  std::vector<std::string> cases;
  bool stale = false;
  bool all = false;
  bool json = false;
};

int run_forget(Context& ctx, const ForgetOptions& o) {
  if (o.cases.empty() && !o.stale && !o.all)
    return report(input_error("grade forget: say which records: --case ID (repeatable), --stale or --all"));
  if (o.all && (!o.cases.empty() || o.stale))
    return report(input_error("grade forget: --all drops every record; --case and --stale go without it"));
  auto archive = open_archive(ctx, Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  ForgetFilter filter;
  filter.case_ids = o.cases;
  filter.stale = o.stale;
  filter.all = o.all;
  auto n = forget_gradings(*archive, filter);
  if (!n) return report(n.error());
  if (o.json) std::cout << dump_compact(Json{{"forgotten", *n}}) << "\n";
  else std::cout << "forgot " << *n << " recorded grading(s)\n";
  return k_exit_ok;
}

}  // namespace

void setup_grade_compare_forget(CLI::App& sub, Context& ctx, CLI::App** compare_out, CLI::App** forget_out) {
  auto c = std::make_shared<CompareOptions>();
  CLI::App* compare = sub.add_subcommand(
      "compare", "Compare two models of one grading: the difference in resolved rate, its interval and a paired test");
  compare->add_option("dir", c->dir, "a grading folder (grade --out DIR or grade merge --out DIR)")
      ->required()
      ->check(nonempty_validator("the path of a grading folder"));
  compare->add_option("--models", c->models, "the two models, A,B (the difference is A - B)")
      ->required()
      ->check(nonempty_validator("two model names as A,B"));
  compare->add_flag("--json", c->json,
                    "one JSON object: models, cases, cases_a, cases_b, units, resolved_rate, difference, interval, "
                    "p_value, permutation {exact, patterns}, seed");
  compare->callback([&ctx, c] { ctx.exit_status = run_compare(ctx, *c); });
  auto f = std::make_shared<ForgetOptions>();
  CLI::App* forget = sub.add_subcommand("forget", "Drop recorded gradings from the archive, so they are graded anew");
  forget->add_option("--case", f->cases, "drop the records of this case as it is now (repeatable)")
      ->check(nonempty_validator("a case id"));
  forget->add_flag("--stale", f->stale, "drop the records of cases changed or removed since they were graded");
  forget->add_flag("--all", f->all, "drop every record");
  forget->add_flag("--json", f->json, "print {\"forgotten\": N}");
  forget->callback([&ctx, f] { ctx.exit_status = run_forget(ctx, *f); });
  *compare_out = compare;
  *forget_out = forget;
}

}  // namespace failmap::cli
