// Group-safe evaluation splits (docs/glossary.md "unit", "split",
// "fold"; schema/SPLITS.md).
//
// Items (archive cases, or lines of an external listing) carry link keys —
// "mechanism:<id>", "group:<tag>", "content:<sha256>", or "<field>=<json>" for
// listings. Items sharing a key are in one *unit* (union-find, transitively);
// a unit is never divided between two splits. Units are then assigned to
// named ratio splits or to K folds, balanced by item count.
//
// Everything here is pure (no I/O) and deterministic on every machine and
// compiler: integer arithmetic only, the one pseudo-random input is SHA-256 of
// (seed, unit key), and every tie is broken by a written-down key. The
// algorithm is specified in schema/SPLITS.md precisely enough to reimplement;
// change it only together with that document and k_split_algorithm_version.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/result.h"

namespace failmap {

/// Version of the assignment algorithm (schema/SPLITS.md); recorded in every
/// split manifest. Bumped whenever the same input and seed could give a
/// different assignment.
inline constexpr int k_split_algorithm_version = 1;

/// Disjoint-set forest over item indexes 0..n-1: union by size, path halving.
/// Which element represents a set is an implementation detail; callers only
/// compare find() results.
class UnionFind {
 public:
  explicit UnionFind(std::uint32_t n);
  /// Adds a new singleton set; returns its element.
  std::uint32_t add();
  /// The representative of x's set. x < size().
  std::uint32_t find(std::uint32_t x);
  /// Merges the sets of a and b; returns false when they were already one.
  bool unite(std::uint32_t a, std::uint32_t b);
  std::uint32_t size() const { return static_cast<std::uint32_t>(m_parent.size()); }

 private:
  std::vector<std::uint32_t> m_parent;
  std::vector<std::uint32_t> m_size;
};

/// Whether a link key may name a unit. Content digests link duplicates but
/// would make poor (unstable, unreadable) unit names.
enum class LinkRole { Naming, LinkOnly };

/// The result of grouping: every item in exactly one unit.
struct Partition {
  /// Unit keys in ascending byte order; unit u is named unit_keys[u].
  /// A unit's key is the byte-wise smallest Naming key any of its items
  /// carries (schema/SPLITS.md "Units").
  std::vector<std::string> unit_keys;
  std::vector<std::uint32_t> unit_of;     ///< per item: its unit index
  std::vector<std::uint32_t> unit_sizes;  ///< per unit: number of items
  std::size_t item_count() const { return unit_of.size(); }
  std::size_t unit_count() const { return unit_keys.size(); }
  /// Size of the largest unit (0 when there are no items).
  std::uint32_t largest_unit() const;
};

/// Builds units from link declarations. Keys are interned and the union-find
/// runs over keys, not items, so a million items sharing a few thousand keys
/// cost one hash lookup each and stay in cache.
class UnitBuilder {
 public:
  explicit UnitBuilder(std::uint32_t item_count);
  ~UnitBuilder();
  UnitBuilder(UnitBuilder&&) noexcept;
  UnitBuilder& operator=(UnitBuilder&&) noexcept;
  /// Declares that `item` (< item_count) carries `key`.
  void link(std::uint32_t item, std::string_view key, LinkRole role = LinkRole::Naming);
  /// The units. An Error names the first item (by index) that carries no
  /// Naming key: its unit would have no name.
  Result<Partition> build() &&;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// Declares the links of an archive case (schema/SPLITS.md "Units"):
/// "mechanism:<id>" and "group:<tag>" for each evaluation_group tag, all
/// Naming. (`--group-by content` adds "content:<digest>" as LinkOnly.)
void link_case(UnitBuilder& builder, std::uint32_t item, const Case& c);

/// One requested split: a name and its share in parts per billion
/// (0.8 -> 800000000), exactly as written in the request.
struct SplitShare {
  std::string name;
  std::int64_t ppb = 0;
};

/// Parses "train=0.8,test=0.2" (any number of splits). Names are 1..64 bytes
/// of [A-Za-z0-9._-], unique, not starting with '.', not "assignments"
/// (reserved for the assignment file). Shares are decimals in (0, 1] with at
/// most 9 fractional digits. Their sum must be within 0.001 of 1 (it is then
/// used as the denominator, so 0.333 x3 is accepted and means thirds). At
/// least two splits. Errors (Input) say which part is wrong.
Result<std::vector<SplitShare>> parse_ratios(std::string_view spec);

/// Balanced: greedy by size (the default). Stable: hash bucketing, so a
/// unit's split depends only on the seed and its key (schema/SPLITS.md).
enum class SplitMode { Balanced, Stable };

/// Units placed into splits (ratio splits) or folds (fold k is split k).
struct Assignment {
  std::vector<std::string> split_names;      ///< in request order; folds: "fold-1".."fold-K"
  std::vector<double> requested;             ///< requested share per split (folds: 1/K)
  std::vector<std::uint32_t> split_of_unit;  ///< per unit: index into split_names
  std::vector<std::uint64_t> items;          ///< per split: items assigned
  std::vector<std::uint64_t> units;          ///< per split: units assigned
  /// Achieved share of split s: items[s] / total items.
  double achieved(std::size_t s) const;
  /// Largest |achieved - requested| over the splits, as a fraction.
  double max_deviation() const;
};

/// The seeded 64-bit hash of a unit key: the first 8 bytes, big-endian, of
/// SHA-256("failmap-split-v1" 0x00 decimal(seed) 0x00 key).
std::uint64_t unit_hash(std::uint64_t seed, std::string_view key);

/// The order in which Balanced mode places units: size descending, then
/// unit_hash ascending, then key ascending. Returns unit indexes.
std::vector<std::uint32_t> placement_order(const Partition& p, std::uint64_t seed);

/// Assigns units to ratio splits. Balanced: every split's item count is
/// within one largest unit of its target (proof in schema/SPLITS.md).
/// Input errors: no items; fewer units than splits; a split that ends with no
/// unit (its share is too small for the units there are).
Result<Assignment> assign_ratios(const Partition& p, const std::vector<SplitShare>& shares, std::uint64_t seed,
                                 SplitMode mode);

/// Assigns units to K folds (each unit in exactly one test fold). Input
/// errors: K < 2; K greater than the number of units; an empty fold (Stable).
Result<Assignment> assign_folds(const Partition& p, int k, std::uint64_t seed, SplitMode mode);

/// One line of a split folder: item `id` claimed for split `split`.
struct SplitClaim {
  std::string id;
  std::string split;
};

/// A unit found in more than one split, with every claimed member.
struct Straddle {
  std::string unit_key;
  /// (split, id) pairs, sorted; one per distinct claim.
  std::vector<std::pair<std::string, std::string>> members;
};

/// What a leakage audit found; clean() when nothing.
struct AuditResult {
  std::vector<std::string> unknown_ids;  ///< claimed ids that are no item, sorted, unique
  std::vector<Straddle> straddles;       ///< in unit key order
  std::size_t claimed_items = 0;         ///< distinct known items claimed
  bool clean() const { return unknown_ids.empty() && straddles.empty(); }
};

/// Audits claims against units: every claimed id must be an item
/// (`item_ids[i]` names item i of `p`), and no unit may have members claimed
/// for two different splits (an id claimed twice for different splits is such
/// a unit). Pure; order of claims does not matter.
AuditResult audit_claims(const Partition& p, const std::vector<std::string>& item_ids,
                         const std::vector<SplitClaim>& claims);
/// audit_claims over `count` claims read through `claim_at(c)` (c <
/// count, called several times per claim; the reference must stay valid
/// during the call), so that claims held in another shape (`split check`'s
/// FolderClaims) are audited where they are, not copied.
AuditResult audit_claims(const Partition& p, const std::vector<std::string>& item_ids, std::size_t count,
                         const std::function<const SplitClaim&(std::size_t)>& claim_at);

}  // namespace failmap
