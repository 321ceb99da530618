#include "store/units.h"

#include <algorithm>

#include "encoding/sha256.h"
#include "io/split_folder.h"

namespace failmap {
namespace {

// Item indexes ordered by content digest (ties by index).
std::vector<std::uint32_t> by_digest(const std::vector<Sha256Bytes>& digests) {
  std::vector<std::uint32_t> order(digests.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return digests[x] != digests[y] ? digests[x] < digests[y] : x < y;
  });
  return order;
}

// Calls fn(key, first, last) for each distinct digest: its "content:<hex>"
// key and the range [first, last) of `order` (by_digest) holding its items,
// in key order.
template <class Fn>
void for_each_content(const std::vector<Sha256Bytes>& digests, const std::vector<std::uint32_t>& order, Fn fn) {
  for (std::size_t first = 0, last = 0; first < order.size(); first = last) {
    const Sha256Bytes& d = digests[order[first]];
    while (last < order.size() && digests[order[last]] == d) ++last;
    fn("content:" + to_hex(d.data(), d.size()), first, last);
  }
}

}  // namespace

// Per case the partition keeps its unit links and, when content counts,
// its 32-byte content digest (not the case).
// "content:<sha256>" keys are only linked for digests that two or more cases
// share: a key no other case carries joins nothing, and as a LinkOnly key
// names nothing (schema/SPLITS.md "Units"), so the units are the same.
Result<ArchiveItems> load_archive_items(Archive& archive, ItemsFor what) {
  FAILMAP_TRY_ASSIGN(auto count, archive.case_count());
  if (count == 0) return input_error(archive.db().path() + ": the archive holds no cases (import some first)");
  if (count > UINT32_MAX) return input_error(archive.db().path() + ": more than 4,294,967,295 cases to split");
  const auto n = static_cast<std::uint32_t>(count);
  const bool content = what != ItemsFor::Split;
  ArchiveItems a;
  UnitBuilder units(n);
  std::vector<Sha256Bytes> digests;
  if (content) digests.reserve(n);
  if (what == ItemsFor::Check) a.ids.reserve(n);
  constexpr std::size_t k_batch = 1024;
  std::vector<Case> batch;
  std::vector<CaseRowTexts> texts;
  Archive::DecodeCache cache;
  std::string after;
  std::uint32_t i = 0;
  for (;;) {
    auto case_at = [&batch](std::size_t r) -> Case& {
      if (r == batch.size()) batch.emplace_back();
      return batch[r];
    };
    FAILMAP_TRY_ASSIGN(auto rows, archive.read_case_rows(after, k_batch, Archive::CaseFields::Split, case_at, &texts));
    if (rows == 0) break;
    if (rows > n - i) return input_error(archive.db().path() + ": the archive changed while it was read");
    for (std::size_t r = 0; r < rows; ++r, ++i) {
      Case& c = batch[r];
      FAILMAP_TRY(Archive::decode_case_row(Archive::CaseFields::Split, texts[r], archive.db().path(), &c, &cache));
      link_case(units, i, c);
      if (content) digests.push_back(case_content_digest(c));
      if (what == ItemsFor::Check) a.ids.push_back(c.id);
    }
    after = batch[rows - 1].id;
  }
  if (i != n) return input_error(archive.db().path() + ": the archive changed while it was read");
  std::vector<std::uint32_t> order;
  if (content) order = by_digest(digests);
  if (what == ItemsFor::SplitByContent)
    for_each_content(digests, order, [&](const std::string& key, std::size_t first, std::size_t last) {
      if (last - first > 1)
        for (std::size_t k = first; k < last; ++k) units.link(order[k], key, LinkRole::LinkOnly);
    });
  if (what == ItemsFor::Check) {
    // As UnitBuilder would group cases by their content keys alone: units
    // in key order, which is digest order.
    a.content.unit_of.resize(n);
    for_each_content(digests, order, [&](std::string key, std::size_t first, std::size_t last) {
      const auto u = static_cast<std::uint32_t>(a.content.unit_keys.size());
      a.content.unit_keys.push_back(std::move(key));
      a.content.unit_sizes.push_back(static_cast<std::uint32_t>(last - first));
      for (std::size_t k = first; k < last; ++k) a.content.unit_of[order[k]] = u;
    });
  }
  FAILMAP_TRY_ASSIGN(a.units, std::move(units).build());
  return a;
}

}  // namespace failmap
