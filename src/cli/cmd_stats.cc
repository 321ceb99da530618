// failmap stats [--json]
//
// What the archive holds, in the terms a split and a curator need: cases,
// mechanisms, split units (mechanism and evaluation_group links, as `split`
// builds them, schema/SPLITS.md "Units"), the largest unit and its share of
// the cases (the balance bound of every split), recorded and missing runs per
// strategy, and the sets of cases with identical content (case_content_digest:
// the same checks, as `split --group-by content` links them).
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "io/json.h"
#include "store/units.h"

namespace failmap::cli {
namespace {

struct StatsOptions {
  bool json = false;
};

// A set of two or more cases with the same content.
struct DuplicateSet {
  std::string content;  // 64 hex
  std::vector<std::string> ids;
};

int run_stats(Context& ctx, const StatsOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  Transaction snapshot(archive->db(), Transaction::Mode::ReadSnapshot);  // every count of one state
  if (Status st = snapshot.begin(); !st) return report(st.error());
  auto by_mechanism = archive->case_counts_by_mechanism();
  if (!by_mechanism) return report(by_mechanism.error());
  auto runs = archive->run_counts();
  if (!runs) return report(runs.error());
  std::int64_t cases = 0;
  for (const auto& [id, n] : *by_mechanism) cases += n;
  ArchiveItems items;
  if (cases > 0) {
    auto loaded = load_archive_items(*archive, ItemsFor::Check);
    if (!loaded) return report(loaded.error());
    items = std::move(*loaded);
  }
  const Partition& units = items.units;
  // The largest unit: the first (in key order) of the largest size.
  std::optional<std::size_t> largest;
  for (std::size_t u = 0; u < units.unit_count(); ++u)
    if (!largest || units.unit_sizes[u] > units.unit_sizes[*largest]) largest = u;
  const double share =
      largest ? static_cast<double>(units.unit_sizes[*largest]) / static_cast<double>(units.item_count()) : 0.0;
  // Duplicate content: content units of two or more cases, in content order, ids in id order.
  std::vector<DuplicateSet> duplicates;
  std::vector<std::int64_t> set_of(items.content.unit_count(), -1);
  for (std::size_t u = 0; u < items.content.unit_count(); ++u)
    if (items.content.unit_sizes[u] > 1) {
      set_of[u] = static_cast<std::int64_t>(duplicates.size());
      duplicates.push_back(DuplicateSet{items.content.unit_keys[u].substr(std::string_view("content:").size()), {}});
    }
  std::size_t duplicate_cases = 0;
  for (std::size_t i = 0; i < items.content.item_count(); ++i)
    if (std::int64_t s = set_of[items.content.unit_of[i]]; s >= 0) {
      duplicates[static_cast<std::size_t>(s)].ids.push_back(items.ids[i]);
      ++duplicate_cases;
    }
  std::int64_t recorded = 0;
  for (std::int64_t n : *runs) recorded += n;
  const std::int64_t possible = cases * static_cast<std::int64_t>(k_all_strategies.size());

  if (o.json) {
    Json by_strategy = Json::object();
    for (StrategyKind k : k_all_strategies) {
      const std::int64_t n = (*runs)[static_cast<std::size_t>(k)];
      by_strategy[std::string(strategy_name(k))] = Json{{"recorded", n}, {"missing", cases - n}};
    }
    Json sets = Json::array();
    for (const DuplicateSet& d : duplicates) sets.push_back(Json{{"content", d.content}, {"cases", d.ids}});
    Json mechanisms = Json::object();
    for (const auto& [id, n] : *by_mechanism) mechanisms[id] = n;
    std::cout
        << dump_compact(Json{
               {"cases", cases},
               {"mechanisms", by_mechanism->size()},
               {"cases_by_mechanism", mechanisms},
               {"units", units.unit_count()},
               {"largest_unit",
                largest
                    ? Json{{"key", units.unit_keys[*largest]}, {"cases", units.unit_sizes[*largest]}, {"share", share}}
                    : Json(nullptr)},
               {"runs", Json{{"recorded", recorded}, {"missing", possible - recorded}, {"by_strategy", by_strategy}}},
               {"duplicate_content", Json{{"sets", duplicates.size()}, {"cases", duplicate_cases}, {"members", sets}}}})
        << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  std::cout << "cases:              " << cases << "\n";
  std::cout << "mechanisms:         " << by_mechanism->size() << "\n";
  std::cout << "split units:        " << units.unit_count() << " (cases linked by mechanism or evaluation_group)\n";
  std::cout << "largest unit:       ";
  if (largest) {
    std::ostringstream pct;
    pct << std::fixed << std::setprecision(2) << share * 100;
    std::cout << units.unit_keys[*largest] << ", " << units.unit_sizes[*largest] << " case(s), " << pct.str()
              << "% of the cases\n";
  } else {
    std::cout << "none\n";
  }
  std::cout << "runs recorded:      " << recorded << " of " << possible << " (" << possible - recorded << " missing:";
  for (StrategyKind k : k_all_strategies)
    std::cout << (k == StrategyKind::Broken ? " " : ", ") << strategy_name(k) << " "
              << cases - (*runs)[static_cast<std::size_t>(k)];
  std::cout << ")\n";
  std::cout << "duplicate content:  " << duplicate_cases << " case(s) in " << duplicates.size()
            << " set(s) of identical checks\n";
  for (const DuplicateSet& d : duplicates) {
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
