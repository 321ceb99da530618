#include "store/archive_stats.h"

#include <string_view>
#include <utility>

#include "store/sqlite.h"
#include "store/units.h"

namespace failmap {

Result<ArchiveStats> archive_stats(Archive& archive) {
  Transaction snapshot(archive.db(), Transaction::Mode::ReadSnapshot);  // every count of one state
  FAILMAP_TRY(snapshot.begin());
  ArchiveStats out;
  FAILMAP_TRY_ASSIGN(out.cases_by_mechanism, archive.case_counts_by_mechanism());
  FAILMAP_TRY_ASSIGN(out.runs_by_strategy, archive.run_counts());
  for (const auto& [id, n] : out.cases_by_mechanism) out.cases += n;
  ArchiveItems items;
  if (out.cases > 0) {
    FAILMAP_TRY_ASSIGN(items, load_archive_items(archive, ItemsFor::Check));
  }
  const Partition& units = items.units;
  out.units = units.unit_count();
  // The largest unit: the first (in key order) of the largest size.
  std::optional<std::size_t> largest;
  for (std::size_t u = 0; u < units.unit_count(); ++u)
    if (!largest || units.unit_sizes[u] > units.unit_sizes[*largest]) largest = u;
  if (largest)
    out.largest_unit =
        LargestUnit{units.unit_keys[*largest], units.unit_sizes[*largest],
                    static_cast<double>(units.unit_sizes[*largest]) / static_cast<double>(units.item_count())};
  // Duplicate content: content units of two or more cases, in content order, ids in id order.
  std::vector<std::int64_t> set_of(items.content.unit_count(), -1);
  for (std::size_t u = 0; u < items.content.unit_count(); ++u)
    if (items.content.unit_sizes[u] > 1) {
      set_of[u] = static_cast<std::int64_t>(out.duplicates.size());
      out.duplicates.push_back(
          DuplicateContent{items.content.unit_keys[u].substr(std::string_view("content:").size()), {}});
    }
  for (std::size_t i = 0; i < items.content.item_count(); ++i)
    if (std::int64_t s = set_of[items.content.unit_of[i]]; s >= 0) {
      out.duplicates[static_cast<std::size_t>(s)].ids.push_back(items.ids[i]);
      ++out.duplicate_cases;
    }
  for (std::int64_t n : out.runs_by_strategy) out.runs_recorded += n;
  out.runs_possible = out.cases * static_cast<std::int64_t>(k_all_strategies.size());
  return out;
}

}  // namespace failmap
