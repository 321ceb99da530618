#include "core/split.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace failmap {

// ---- union-find -------------------------------------------------------------

UnionFind::UnionFind(std::uint32_t n) : m_parent(n), m_size(n, 1) { std::iota(m_parent.begin(), m_parent.end(), 0u); }

std::uint32_t UnionFind::find(std::uint32_t x) {
  while (m_parent[x] != x) {
    m_parent[x] = m_parent[m_parent[x]];
    x = m_parent[x];
  }
  return x;
}

std::uint32_t UnionFind::add() {
  auto x = static_cast<std::uint32_t>(m_parent.size());
  m_parent.push_back(x);
  m_size.push_back(1);
  return x;
}

bool UnionFind::unite(std::uint32_t a, std::uint32_t b) {
  a = find(a);
  b = find(b);
  if (a == b) return false;
  if (m_size[a] < m_size[b]) std::swap(a, b);
  m_parent[b] = a;
  m_size[a] += m_size[b];
  return true;
}

std::uint32_t Partition::largest_unit() const {
  return unit_sizes.empty() ? 0 : *std::max_element(unit_sizes.begin(), unit_sizes.end());
}

// ---- units ------------------------------------------------------------------

// Keys are interned in first-seen order; the hash map is only ever looked up,
// never iterated, so its (unspecified) order cannot reach the output. The
// sets are sets of keys: an item joins its first key's set, and each further
// key of the item is united with that one.
struct UnitBuilder::Impl {
  // Heterogeneous lookup by string_view (a member, not in an unnamed
  // namespace: Impl has external linkage).
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static constexpr std::uint32_t k_none = UINT32_MAX;
  explicit Impl(std::uint32_t n) : sets(0), item_key(n, k_none), has_name(n, 0) {}
  UnionFind sets;                       // over key indexes
  std::vector<std::uint32_t> item_key;  // per item: its first key, or k_none
  std::vector<char> has_name;           // per item
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> index;
  std::vector<std::string> keys;  // by key index
  std::vector<char> naming;       // by key index
};

UnitBuilder::UnitBuilder(std::uint32_t item_count) : m_impl(std::make_unique<Impl>(item_count)) {}
UnitBuilder::~UnitBuilder() = default;
UnitBuilder::UnitBuilder(UnitBuilder&&) noexcept = default;
UnitBuilder& UnitBuilder::operator=(UnitBuilder&&) noexcept = default;

void UnitBuilder::link(std::uint32_t item, std::string_view key, LinkRole role) {
  Impl& s = *m_impl;
  std::uint32_t k;
  auto it = s.index.find(key);
  if (it == s.index.end()) {
    k = s.sets.add();
    s.index.emplace(std::string(key), k);
    s.keys.emplace_back(key);
    s.naming.push_back(0);
  } else {
    k = it->second;
  }
  if (role == LinkRole::Naming) {
    s.naming[k] = 1;
    s.has_name[item] = 1;
  }
  if (s.item_key[item] == Impl::k_none) s.item_key[item] = k;
  else s.sets.unite(s.item_key[item], k);
}

Result<Partition> UnitBuilder::build() && {
  Impl& s = *m_impl;
  const auto n = static_cast<std::uint32_t>(s.item_key.size());
  for (std::uint32_t i = 0; i < n; ++i)
    if (!s.has_name[i]) return input_error("item " + std::to_string(i + 1) + " carries no group key");
  // The name of each root: the smallest Naming key of its set.
  const std::uint32_t key_count = s.sets.size();
  std::vector<std::uint32_t> name_of_root(key_count, Impl::k_none);
  for (std::uint32_t k = 0; k < key_count; ++k) {
    if (!s.naming[k]) continue;
    std::uint32_t r = s.sets.find(k);
    if (name_of_root[r] == Impl::k_none || s.keys[k] < s.keys[name_of_root[r]]) name_of_root[r] = k;
  }
  // Every key belongs to some item, and every item has a Naming key, so every
  // root has a name.
  std::vector<std::uint32_t> roots;
  for (std::uint32_t k = 0; k < key_count; ++k)
    if (s.sets.find(k) == k) roots.push_back(k);
  std::sort(roots.begin(), roots.end(),
            [&](std::uint32_t a, std::uint32_t b) { return s.keys[name_of_root[a]] < s.keys[name_of_root[b]]; });
  std::vector<std::uint32_t> unit_of_root(key_count, Impl::k_none);
  Partition p;
  p.unit_keys.reserve(roots.size());
  for (std::uint32_t u = 0; u < roots.size(); ++u) {
    unit_of_root[roots[u]] = u;
    p.unit_keys.push_back(s.keys[name_of_root[roots[u]]]);
  }
  std::vector<std::uint32_t> unit_of_key(key_count);
  for (std::uint32_t k = 0; k < key_count; ++k) unit_of_key[k] = unit_of_root[s.sets.find(k)];
  p.unit_sizes.assign(roots.size(), 0);
  p.unit_of.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t u = unit_of_key[s.item_key[i]];
    p.unit_of[i] = u;
    ++p.unit_sizes[u];
  }
  return p;
}

void link_case(UnitBuilder& builder, std::uint32_t item, const Case& c) {
  builder.link(item, "mechanism:" + c.mechanism);
  for (const std::string& tag : c.evaluation_group) builder.link(item, "group:" + tag);
}

// ---- ratios -----------------------------------------------------------------

namespace {

constexpr std::int64_t k_ppb = 1'000'000'000;
constexpr std::int64_t k_sum_tolerance_ppb = 1'000'000;  // 0.001

bool valid_split_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name == "assignments") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

// "0.8" -> 800000000; at most 9 fractional digits, no sign, no exponent.
bool parse_ppb(std::string_view text, std::int64_t* out) {
  std::size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if ((whole.empty() && frac.empty()) || whole.size() > 1 || frac.size() > 9) return false;
  if (dot != std::string_view::npos && frac.empty()) return false;
  std::int64_t v = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  std::int64_t f = 0;
  for (char c : frac) {
    if (c < '0' || c > '9') return false;
    f = f * 10 + (c - '0');
  }
  for (std::size_t i = frac.size(); i < 9; ++i) f *= 10;
  *out = v * k_ppb + f;
  return true;
}

std::string format_ppb(std::int64_t ppb) {
  std::string frac = std::to_string(ppb % k_ppb);
  frac.insert(0, 9 - frac.size(), '0');
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(ppb / k_ppb) + (frac.empty() ? "" : "." + frac);
}

}  // namespace

Result<std::vector<SplitShare>> parse_ratios(std::string_view spec) {
  std::vector<SplitShare> out;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string_view part = spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    std::size_t eq = part.find('=');
    if (eq == std::string_view::npos)
      return input_error("--ratios: '" + std::string(part) + "' is not NAME=SHARE (e.g. train=0.8,test=0.2)");
    SplitShare s{std::string(part.substr(0, eq)), 0};
    if (!valid_split_name(s.name))
      return input_error("--ratios: split name '" + s.name +
                         "' must be 1..64 of [A-Za-z0-9._-], not start with '.', and not be 'assignments'");
    for (const SplitShare& o : out)
      if (o.name == s.name) return input_error("--ratios: split '" + s.name + "' named twice");
    if (!parse_ppb(part.substr(eq + 1), &s.ppb) || s.ppb <= 0 || s.ppb > k_ppb)
      return input_error("--ratios: share of '" + s.name + "' is '" + std::string(part.substr(eq + 1)) +
                         "'; expected a decimal in (0, 1] with at most 9 fractional digits");
    out.push_back(std::move(s));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (out.size() < 2) return input_error("--ratios: name at least two splits (e.g. train=0.8,test=0.2)");
  std::int64_t sum = 0;
  for (const SplitShare& s : out) sum += s.ppb;
  if (sum < k_ppb - k_sum_tolerance_ppb || sum > k_ppb + k_sum_tolerance_ppb)
    return input_error("--ratios: shares sum to " + format_ppb(sum) + "; they must sum to 1 (within 0.001)");
  return out;
}

// ---- hashing and placement ---------------------------------------------------

std::uint64_t unit_hash(std::uint64_t seed, std::string_view key) {
  std::string msg = "failmap-split-v1";
  msg.push_back('\0');
  msg += std::to_string(seed);
  msg.push_back('\0');
  msg += key;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(msg.data(), msg.size(), md, &len, EVP_sha256(), nullptr);
  std::uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h = (h << 8) | md[i];
  return h;
}

std::vector<std::uint32_t> placement_order(const Partition& p, std::uint64_t seed) {
  std::vector<std::uint64_t> hash(p.unit_count());
  for (std::size_t u = 0; u < hash.size(); ++u) hash[u] = unit_hash(seed, p.unit_keys[u]);
  std::vector<std::uint32_t> order(p.unit_count());
  std::iota(order.begin(), order.end(), 0u);
  // Unit keys are distinct, so this is a strict total order: std::sort's
  // instability cannot show.
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (p.unit_sizes[a] != p.unit_sizes[b]) return p.unit_sizes[a] > p.unit_sizes[b];
    if (hash[a] != hash[b]) return hash[a] < hash[b];
    return p.unit_keys[a] < p.unit_keys[b];
  });
  return order;
}

double Assignment::achieved(std::size_t s) const {
  std::uint64_t total = std::accumulate(items.begin(), items.end(), std::uint64_t{0});
  return total == 0 ? 0.0 : static_cast<double>(items[s]) / static_cast<double>(total);
}

double Assignment::max_deviation() const {
  double worst = 0;
  for (std::size_t s = 0; s < items.size(); ++s) worst = std::max(worst, std::fabs(achieved(s) - requested[s]));
  return worst;
}

namespace {

Assignment empty_assignment(const Partition& p, std::size_t splits) {
  Assignment a;
  a.split_of_unit.assign(p.unit_count(), 0);
  a.items.assign(splits, 0);
  a.units.assign(splits, 0);
  return a;
}

void place(const Partition& p, Assignment& a, std::uint32_t unit, std::uint32_t split) {
  a.split_of_unit[unit] = split;
  a.items[split] += p.unit_sizes[unit];
  a.units[split] += 1;
}

// What to try when a split or fold is left empty: the advice fits the mode
// (folds have no shares; stable mode depends on the seed, balanced mode fills
// every fold).
enum class Shares { Ratios, Folds };

Status require_every_split_filled(const Assignment& a, std::size_t units, Shares shares, SplitMode mode) {
  const std::string n = std::to_string(a.split_names.size());
  for (std::size_t s = 0; s < a.split_names.size(); ++s) {
    if (a.units[s] != 0) continue;
    if (shares == Shares::Folds)
      return input_error("fold '" + a.split_names[s] + "' receives no unit: --stable hashes each of the " +
                         std::to_string(units) + " unit(s) to one of " + n +
                         " folds and none landed in it (try another --seed or fewer --folds; without --stable "
                         "every fold receives a unit)");
    return input_error("split '" + a.split_names[s] + "' can receive no unit: " + std::to_string(units) +
                       " unit(s) among " + n + " splits leave it empty (raise its share" +
                       (mode == SplitMode::Stable ? ", try another --seed" : "") + ", or use fewer splits)");
  }
  return ok_status();
}

}  // namespace

Result<Assignment> assign_ratios(const Partition& p, const std::vector<SplitShare>& shares, std::uint64_t seed,
                                 SplitMode mode) {
  if (p.item_count() == 0) return input_error("nothing to split: no items");
  if (p.item_count() > UINT32_MAX) return input_error("more than 2^32-1 items");
  if (p.unit_count() < shares.size())
    return input_error("cannot fill " + std::to_string(shares.size()) + " splits from " +
                       std::to_string(p.unit_count()) + " unit(s): a unit is never divided");
  Assignment a = empty_assignment(p, shares.size());
  std::int64_t weight_sum = 0;
  for (const SplitShare& s : shares) weight_sum += s.ppb;
  for (const SplitShare& s : shares) {
    a.split_names.push_back(s.name);
    a.requested.push_back(static_cast<double>(s.ppb) / static_cast<double>(weight_sum));
  }
  const auto total = static_cast<std::int64_t>(p.item_count());
  if (mode == SplitMode::Stable) {
    for (std::uint32_t u = 0; u < p.unit_count(); ++u) {
      auto x = static_cast<std::int64_t>(unit_hash(seed, p.unit_keys[u]) % static_cast<std::uint64_t>(weight_sum));
      std::uint32_t s = 0;
      for (std::int64_t cum = shares[0].ppb; x >= cum; cum += shares[++s].ppb) {}
      place(p, a, u, s);
    }
  } else {
    // Deficit of split s, scaled by weight_sum so it stays an integer:
    // total*w_s - items_s*weight_sum (< 2^32 * 1.001e9 < 2^63).
    for (std::uint32_t u : placement_order(p, seed)) {
      std::uint32_t best = 0;
      std::int64_t best_deficit = INT64_MIN;
      for (std::uint32_t s = 0; s < shares.size(); ++s) {
        std::int64_t deficit = total * shares[s].ppb - static_cast<std::int64_t>(a.items[s]) * weight_sum;
        if (deficit > best_deficit) {
          best_deficit = deficit;
          best = s;
        }
      }
      place(p, a, u, best);
    }
  }
  FAILMAP_TRY(require_every_split_filled(a, p.unit_count(), Shares::Ratios, mode));
  return a;
}

Result<Assignment> assign_folds(const Partition& p, int k, std::uint64_t seed, SplitMode mode) {
  if (p.item_count() == 0) return input_error("nothing to split: no items");
  if (k < 2) return input_error("--folds must be at least 2, got " + std::to_string(k));
  if (static_cast<std::size_t>(k) > p.unit_count())
    return input_error("cannot make " + std::to_string(k) + " folds from " + std::to_string(p.unit_count()) +
                       " unit(s): every fold needs at least one unit");
  Assignment a = empty_assignment(p, static_cast<std::size_t>(k));
  for (int f = 1; f <= k; ++f) {
    a.split_names.push_back("fold-" + std::to_string(f));
    a.requested.push_back(1.0 / k);
  }
  if (mode == SplitMode::Stable) {
    for (std::uint32_t u = 0; u < p.unit_count(); ++u)
      place(p, a, u, static_cast<std::uint32_t>(unit_hash(seed, p.unit_keys[u]) % static_cast<std::uint64_t>(k)));
  } else {
    for (std::uint32_t u : placement_order(p, seed)) {
      auto lightest = static_cast<std::uint32_t>(std::min_element(a.items.begin(), a.items.end()) - a.items.begin());
      place(p, a, u, lightest);
    }
  }
  FAILMAP_TRY(require_every_split_filled(a, p.unit_count(), Shares::Folds, mode));
  return a;
}

// ---- audit ------------------------------------------------------------------

AuditResult audit_claims(const Partition& p, const std::vector<std::string>& item_ids,
                         const std::vector<SplitClaim>& claims) {
  return audit_claims(p, item_ids, claims.size(), [&claims](std::size_t c) -> const SplitClaim& { return claims[c]; });
}

AuditResult audit_claims(const Partition& p, const std::vector<std::string>& item_ids, std::size_t count,
                         const std::function<const SplitClaim&(std::size_t)>& claim_at) {
  AuditResult r;
  std::unordered_map<std::string_view, std::uint32_t> item_of;  // looked up only
  item_of.reserve(item_ids.size());
  for (std::uint32_t i = 0; i < item_ids.size(); ++i) item_of.emplace(item_ids[i], i);
  // Per unit: the first split claimed for it, and whether a second one was.
  constexpr std::uint32_t k_none = UINT32_MAX;
  std::vector<std::uint32_t> first_claim(p.unit_count(), k_none);
  std::vector<char> straddles(p.unit_count(), 0);
  std::vector<char> seen(p.item_count(), 0);
  std::vector<std::int64_t> item_of_claim(count, -1);
  for (std::size_t c = 0; c < count; ++c) {
    const SplitClaim& claim = claim_at(c);
    auto it = item_of.find(claim.id);
    if (it == item_of.end()) {
      r.unknown_ids.push_back(claim.id);
      continue;
    }
    item_of_claim[c] = it->second;
    if (!seen[it->second]) ++r.claimed_items;
    seen[it->second] = 1;
    std::uint32_t u = p.unit_of[it->second];
    if (first_claim[u] == k_none) first_claim[u] = static_cast<std::uint32_t>(c);
    else if (claim_at(first_claim[u]).split != claim.split) straddles[u] = 1;
  }
  std::sort(r.unknown_ids.begin(), r.unknown_ids.end());
  r.unknown_ids.erase(std::unique(r.unknown_ids.begin(), r.unknown_ids.end()), r.unknown_ids.end());
  std::vector<std::int64_t> straddle_index(p.unit_count(), -1);
  for (std::uint32_t u = 0; u < p.unit_count(); ++u) {  // unit index order is key order
    if (!straddles[u]) continue;
    straddle_index[u] = static_cast<std::int64_t>(r.straddles.size());
    r.straddles.push_back({p.unit_keys[u], {}});
  }
  for (std::size_t c = 0; c < count; ++c) {
    if (item_of_claim[c] < 0) continue;
    std::int64_t s = straddle_index[p.unit_of[static_cast<std::size_t>(item_of_claim[c])]];
    if (s >= 0) {
      const SplitClaim& claim = claim_at(c);
      r.straddles[static_cast<std::size_t>(s)].members.emplace_back(claim.split, claim.id);
    }
  }
  for (Straddle& s : r.straddles) {
    std::sort(s.members.begin(), s.members.end());
    s.members.erase(std::unique(s.members.begin(), s.members.end()), s.members.end());
  }
  return r;
}

}  // namespace failmap
