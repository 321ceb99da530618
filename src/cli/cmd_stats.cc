// failmap stats [--json]
//
// Prints what store/archive_stats.h counts: a table, or one JSON object.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "encoding/json.h"
#include "store/archive_stats.h"

namespace failmap::cli {
namespace {

struct StatsOptions {
  bool json = false;
};

int run_stats(Context& ctx, const StatsOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto stats = archive_stats(*archive);
  if (!stats) return report(stats.error());
  const ArchiveStats& a = *stats;
  const std::int64_t cases = a.cases;
  if (o.json) {
    Json by_strategy = Json::object();
    for (StrategyKind k : k_all_strategies) {
      const std::int64_t n = a.runs_by_strategy[static_cast<std::size_t>(k)];
      by_strategy[std::string(strategy_name(k))] = Json{{"recorded", n}, {"missing", cases - n}};
    }
    Json sets = Json::array();
    for (const DuplicateContent& d : a.duplicates) sets.push_back(Json{{"content", d.content}, {"cases", d.ids}});
    Json mechanisms = Json::object();
    for (const auto& [id, n] : a.cases_by_mechanism) mechanisms[id] = n;
    std::cout << dump_compact(
                     Json{{"cases", cases},
                          {"mechanisms", a.cases_by_mechanism.size()},
                          {"cases_by_mechanism", mechanisms},
                          {"units", a.units},
                          {"largest_unit", a.largest_unit ? Json{{"key", a.largest_unit->key},
                                                                 {"cases", a.largest_unit->cases},
                                                                 {"share", a.largest_unit->share}}
                                                          : Json(nullptr)},
                          {"runs", Json{{"recorded", a.runs_recorded},
                                        {"missing", a.runs_possible - a.runs_recorded},
                                        {"by_strategy", by_strategy}}},
                          {"duplicate_content",
                           Json{{"sets", a.duplicates.size()}, {"cases", a.duplicate_cases}, {"members", sets}}}})
              << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  std::cout << "cases:              " << cases << "\n";
  std::cout << "mechanisms:         " << a.cases_by_mechanism.size() << "\n";
  std::cout << "split units:        " << a.units << " (cases linked by mechanism or evaluation_group)\n";
  std::cout << "largest unit:       ";
  if (a.largest_unit) {
    std::ostringstream pct;
    pct << std::fixed << std::setprecision(2) << a.largest_unit->share * 100;
    std::cout << a.largest_unit->key << ", " << a.largest_unit->cases << " case(s), " << pct.str()
              << "% of the cases\n";
  } else {
    std::cout << "none\n";
  }
  std::cout << "runs recorded:      " << a.runs_recorded << " of " << a.runs_possible << " ("
            << a.runs_possible - a.runs_recorded << " missing:";
  for (StrategyKind k : k_all_strategies)
    std::cout << (k == StrategyKind::Broken ? " " : ", ") << strategy_name(k) << " "
              << cases - a.runs_by_strategy[static_cast<std::size_t>(k)];
  std::cout << ")\n";
  std::cout << "duplicate content:  " << a.duplicate_cases << " case(s) in " << a.duplicates.size()
            << " set(s) of identical checks\n";
  for (const DuplicateContent& d : a.duplicates) {
    std::cout << "  " << d.content.substr(0, 16) << ":";
    for (std::size_t i = 0; i < d.ids.size(); ++i) std::cout << (i ? ", " : " ") << d.ids[i];
    std::cout << "\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_stats(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<StatsOptions>();
  sub.add_flag("--json", o->json,
               "one JSON object: cases, mechanisms, cases_by_mechanism, units, largest_unit {key, cases, share} (null "
               "without cases), runs {recorded, missing, by_strategy}, duplicate_content {sets, cases, members "
               "[{content, cases}]}");
  sub.callback([&ctx, o] { ctx.exit_status = run_stats(ctx, *o); });
}

}  // namespace failmap::cli
