// Group-safe splits (src/core/split.h) against hand-computed examples that
// follow the algorithm written in schema/SPLITS.md. Hash values were printed
// by Python:
//   int.from_bytes(hashlib.sha256(b"failmap-split-v1\0" + b"42\0" + key).digest()[:8], "big")
#include <gtest/gtest.h>

#include "core/split.h"

using namespace failmap;

namespace {

// A partition with the given unit sizes; unit i is keyed "u<i>" (i < 10).
Partition sized(const std::vector<std::uint32_t>& sizes) {
  std::uint32_t n = 0;
  for (auto s : sizes) n += s;
  UnitBuilder b(n);
  std::uint32_t item = 0;
  for (std::size_t u = 0; u < sizes.size(); ++u)
    for (std::uint32_t i = 0; i < sizes[u]; ++i) b.link(item++, "u" + std::to_string(u));
  auto p = std::move(b).build();
  EXPECT_TRUE(p.ok());
  return std::move(p).value();
}

std::vector<SplitShare> shares(std::initializer_list<std::pair<const char*, std::int64_t>> list) {
  std::vector<SplitShare> out;
  for (const auto& [name, ppb] : list) out.push_back({name, ppb});
  return out;
}

}  // namespace

TEST(UnionFind, MergesTransitively) {
  UnionFind uf(5);
  EXPECT_TRUE(uf.unite(0, 1));
  EXPECT_TRUE(uf.unite(3, 4));
  EXPECT_FALSE(uf.unite(1, 0));
  EXPECT_TRUE(uf.unite(1, 4));
  EXPECT_EQ(uf.find(0), uf.find(3));
  EXPECT_NE(uf.find(0), uf.find(2));
  EXPECT_EQ(uf.find(2), 2u);
}

TEST(Units, LinkedByMechanismTagAndContent) {
  UnitBuilder b(6);
  b.link(0, "mechanism:a");
  b.link(1, "mechanism:a");
  b.link(1, "group:x");
  b.link(2, "mechanism:b");
  b.link(2, "group:x");
  b.link(3, "mechanism:c");
  b.link(4, "mechanism:d");
  b.link(4, "content:h", LinkRole::LinkOnly);
  b.link(5, "mechanism:e");
  b.link(5, "content:h", LinkRole::LinkOnly);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.ok()) << p.error().message;
  // Keys: the smallest Naming key of each unit, units in key order;
  // "content:h" links 4 and 5 but never names their unit.
  EXPECT_EQ(p->unit_keys, (std::vector<std::string>{"group:x", "mechanism:c", "mechanism:d"}));
  EXPECT_EQ(p->unit_of, (std::vector<std::uint32_t>{0, 0, 0, 1, 2, 2}));
  EXPECT_EQ(p->unit_sizes, (std::vector<std::uint32_t>{3, 1, 2}));
  EXPECT_EQ(p->largest_unit(), 3u);
}

TEST(Units, ItemWithoutNamingKeyIsRefused) {
  UnitBuilder b(2);
  b.link(0, "mechanism:a");
  b.link(1, "content:h", LinkRole::LinkOnly);
  auto p = std::move(b).build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "item 2 carries no group key");
}

TEST(Hash, MatchesPythonSha256Prefix) {
  EXPECT_EQ(unit_hash(42, "group:x"), 6819341556236075021ull);
  EXPECT_EQ(unit_hash(42, "mechanism:c"), 17769771548532195692ull);
  EXPECT_EQ(unit_hash(0, "a"), 7993714619414561615ull);
  EXPECT_EQ(unit_hash(1, "a"), 5823134174134479973ull);
}

TEST(Ratios, Parses) {
  auto r = parse_ratios("train=0.8,dev=.05,test=0.15");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].name, "train");
  EXPECT_EQ((*r)[0].ppb, 800000000);
  EXPECT_EQ((*r)[1].ppb, 50000000);
  EXPECT_EQ((*r)[2].ppb, 150000000);
  EXPECT_TRUE(parse_ratios("a=0.333,b=0.333,c=0.333").ok());  // within 0.001 of 1
}

TEST(Ratios, RefusesBadSpecs) {
  EXPECT_EQ(parse_ratios("train=0.8,test=0.1").error().message,
            "--ratios: shares sum to 0.9; they must sum to 1 (within 0.001)");
  EXPECT_FALSE(parse_ratios("train=1").ok());                // one split
  EXPECT_FALSE(parse_ratios("train=0.8,test").ok());         // no '='
  EXPECT_FALSE(parse_ratios("a=0.5,a=0.5").ok());            // twice
  EXPECT_FALSE(parse_ratios("a=1.5,b=-0.5").ok());           // out of range
  EXPECT_FALSE(parse_ratios("a=0.5e0,b=0.5").ok());          // exponent
  EXPECT_FALSE(parse_ratios("a=0,b=1").ok());                // empty share
  EXPECT_FALSE(parse_ratios("assignments=0.5,b=0.5").ok());  // reserved file name
  EXPECT_FALSE(parse_ratios("../x=0.5,b=0.5").ok());
  EXPECT_FALSE(parse_ratios("a=0.1234567891,b=0.8765432109").ok());  // 10 digits
}

// Units 5, 3, 2 into halves: 5 -> train (equal deficits 5/5, first split
// wins), 3 -> test (deficits 0 vs 5), 2 -> test (0 vs 2). Exact 5/5.
TEST(Ratios, GreedyHandExampleHalves) {
  Partition p = sized({5, 3, 2});
  auto a = assign_ratios(p, shares({{"train", 500000000}, {"test", 500000000}}), 7, SplitMode::Balanced);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->split_of_unit, (std::vector<std::uint32_t>{0, 1, 1}));
  EXPECT_EQ(a->items, (std::vector<std::uint64_t>{5, 5}));
  EXPECT_EQ(a->units, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(a->achieved(1), 0.5);
}

// Units 4,3,3,2,1,1 (14 items) into a=0.5 b=0.25 c=0.25, targets 7/3.5/3.5:
// 4->a (deficits 7,3.5,3.5); 3->b (3,3.5,3.5; b first); 3->c (3,0.5,3.5);
// 2->a (3,0.5,0.5); 1->a (1,0.5,0.5); 1->b (0,0.5,0.5; b first).
TEST(Ratios, GreedyHandExampleThreeWay) {
  Partition p = sized({4, 3, 3, 2, 1, 1});
  auto a = assign_ratios(p, shares({{"a", 500000000}, {"b", 250000000}, {"c", 250000000}}), 42, SplitMode::Balanced);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->items, (std::vector<std::uint64_t>{7, 4, 3}));
  EXPECT_EQ(a->units, (std::vector<std::uint64_t>{3, 2, 1}));
  EXPECT_EQ(a->split_of_unit[0], 0u);
  EXPECT_EQ(a->split_of_unit[3], 0u);
  // The two 3s go to b and c in unit_hash order; which one is seed-dependent.
  EXPECT_NE(a->split_of_unit[1], a->split_of_unit[2]);
}

TEST(Ratios, WithinOneLargestUnitOnManyUnits) {
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t i = 1; i <= 9; ++i) sizes.push_back(100 / i);  // 100, 50, 33, ..., 11
  Partition p = sized(sizes);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    auto a = assign_ratios(p, shares({{"train", 700000000}, {"dev", 100000000}, {"test", 200000000}}), seed,
                           SplitMode::Balanced);
    ASSERT_TRUE(a.ok());
    double total = static_cast<double>(p.item_count());
    EXPECT_LE(a->max_deviation() * total, p.largest_unit());
  }
}

TEST(Ratios, SeedOrdersEqualUnits) {
  Partition p = sized({1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  auto s = shares({{"train", 500000000}, {"test", 500000000}});
  auto a0 = assign_ratios(p, s, 0, SplitMode::Balanced);
  auto a1 = assign_ratios(p, s, 1, SplitMode::Balanced);
  ASSERT_TRUE(a0.ok() && a1.ok());
  EXPECT_EQ(a0->items, (std::vector<std::uint64_t>{5, 5}));
  EXPECT_NE(a0->split_of_unit, a1->split_of_unit);
  EXPECT_EQ(a0->split_of_unit, assign_ratios(p, s, 0, SplitMode::Balanced)->split_of_unit);
}

TEST(Ratios, RefusesImpossible) {
  Partition p = sized({10, 1});
  // 10 -> big (deficit 10.989 vs 0.011), 1 -> big (0.989 vs 0.011): small stays empty.
  auto a = assign_ratios(p, shares({{"big", 999000000}, {"small", 1000000}}), 0, SplitMode::Balanced);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("split 'small' can receive no unit"), std::string::npos);
  auto b = assign_ratios(sized({3}), shares({{"a", 500000000}, {"b", 500000000}}), 0, SplitMode::Balanced);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message, "cannot fill 2 splits from 1 unit(s): a unit is never divided");
  EXPECT_FALSE(assign_ratios(Partition{}, shares({{"a", 500000000}, {"b", 500000000}}), 0, SplitMode::Balanced).ok());
}

// Stable: split = first s with (unit_hash % 1e9) < cumulative share.
// seed 42: group:x -> 236075021 (< 0.3e9: a), mechanism:c -> 532195692
// (>= 0.5e9: c), mechanism:d -> 342476109 (b).
TEST(Ratios, StableBucketsByHash) {
  UnitBuilder b(3);
  b.link(0, "group:x");
  b.link(1, "mechanism:c");
  b.link(2, "mechanism:d");
  Partition p = std::move(b).build().value();
  auto s = shares({{"a", 300000000}, {"b", 200000000}, {"c", 500000000}});
  auto a = assign_ratios(p, s, 42, SplitMode::Stable);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->split_of_unit, (std::vector<std::uint32_t>{0, 2, 1}));
  // Adding units never moves existing ones.
  UnitBuilder b2(5);
  b2.link(0, "group:x");
  b2.link(1, "mechanism:c");
  b2.link(2, "mechanism:d");
  b2.link(3, "mechanism:aa");
  b2.link(4, "mechanism:zz");
  Partition p2 = std::move(b2).build().value();
  auto a2 = assign_ratios(p2, s, 42, SplitMode::Stable);
  ASSERT_TRUE(a2.ok());
  for (std::uint32_t u = 0; u < p2.unit_count(); ++u) {
    std::uint32_t want = p2.unit_keys[u] == "group:x" ? 0 : p2.unit_keys[u] == "mechanism:c" ? 2 : 1;
    if (p2.unit_keys[u].ends_with("aa") || p2.unit_keys[u].ends_with("zz")) continue;
    EXPECT_EQ(a2->split_of_unit[u], want) << p2.unit_keys[u];
  }
}

// Units 5,3,2,2,1 into 2 folds: 5->1 (tie, first), 3->2, 2->2 (3<5),
// 2->1 (5 = 5, first), 1->2 (5 < 7): folds of 7 and 6 items.
TEST(Folds, LargestFirstIntoLightest) {
  Partition p = sized({5, 3, 2, 2, 1});
  auto a = assign_folds(p, 2, 3, SplitMode::Balanced);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->split_names, (std::vector<std::string>{"fold-1", "fold-2"}));
  EXPECT_EQ(a->items, (std::vector<std::uint64_t>{7, 6}));
  EXPECT_EQ(a->units, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(a->split_of_unit[0], 0u);
  EXPECT_EQ(a->split_of_unit[1], 1u);
  EXPECT_EQ(a->split_of_unit[4], 1u);
}

TEST(Folds, RefusesImpossible) {
  Partition p = sized({5, 3, 2});
  EXPECT_EQ(assign_folds(p, 4, 0, SplitMode::Balanced).error().message,
            "cannot make 4 folds from 3 unit(s): every fold needs at least one unit");
  EXPECT_FALSE(assign_folds(p, 1, 0, SplitMode::Balanced).ok());
  // Stable, seed 42: all three keys hash to 2 mod 3, so folds 1 and 2 stay empty.
  UnitBuilder b(3);
  b.link(0, "group:x");
  b.link(1, "mechanism:c");
  b.link(2, "mechanism:d");
  auto s = assign_folds(std::move(b).build().value(), 3, 42, SplitMode::Stable);
  ASSERT_FALSE(s.ok());
  // Advice that applies to folds (they have no share to raise).
  EXPECT_EQ(s.error().message,
            "fold 'fold-1' receives no unit: --stable hashes each of the 3 unit(s) to one of 3 folds and none landed "
            "in it (try another --seed or fewer --folds; without --stable every fold receives a unit)");
  EXPECT_TRUE(assign_folds(p, 3, 42, SplitMode::Balanced).ok());
}

TEST(Audit, FindsStraddlingUnitsAndUnknownIds) {
  UnitBuilder b(4);
  b.link(0, "mechanism:a");
  b.link(1, "mechanism:a");
  b.link(2, "mechanism:b");
  b.link(3, "mechanism:c");
  Partition p = std::move(b).build().value();
  std::vector<std::string> ids = {"A1", "A2", "B1", "C1"};
  AuditResult clean = audit_claims(p, ids, {{"A1", "train"}, {"A2", "train"}, {"B1", "test"}, {"A1", "train"}});
  EXPECT_TRUE(clean.clean());
  EXPECT_EQ(clean.claimed_items, 3u);
  AuditResult leak = audit_claims(
      p, ids, {{"A1", "train"}, {"B1", "test"}, {"A2", "test"}, {"C1", "train"}, {"C1", "dev"}, {"ZZ", "test"}});
  EXPECT_FALSE(leak.clean());
  EXPECT_EQ(leak.unknown_ids, (std::vector<std::string>{"ZZ"}));
  ASSERT_EQ(leak.straddles.size(), 2u);
  EXPECT_EQ(leak.straddles[0].unit_key, "mechanism:a");
  EXPECT_EQ(leak.straddles[0].members,
            (std::vector<std::pair<std::string, std::string>>{{"test", "A2"}, {"train", "A1"}}));
  EXPECT_EQ(leak.straddles[1].unit_key, "mechanism:c");
  EXPECT_EQ(leak.straddles[1].members,
            (std::vector<std::pair<std::string, std::string>>{{"dev", "C1"}, {"train", "C1"}}));
}

// The claims of a split folder are audited where they are (split check
// holds FolderClaims; a copy as SplitClaims would hold every id and split
// name twice): the accessor form finds what the vector form finds, and
// reads each claim in place, not from a copy.
TEST(Audit, ClaimsReadThroughAnAccessorAreNotCopied) {
  UnitBuilder b(3);
  b.link(0, "mechanism:a");
  b.link(1, "mechanism:a");
  b.link(2, "mechanism:b");
  Partition p = std::move(b).build().value();
  std::vector<std::string> ids = {"A1", "A2", "B1"};
  struct Held {
    SplitClaim claim;
    std::string where;
  };
  const std::vector<Held> held = {{{"A1", "train"}, "train.jsonl:1"},
                                  {{"A2", "test"}, "test.jsonl:1"},
                                  {{"B1", "test"}, "test.jsonl:2"},
                                  {{"ZZ", "test"}, "test.jsonl:3"}};
  std::vector<const SplitClaim*> read;
  AuditResult r = audit_claims(p, ids, held.size(), [&](std::size_t c) -> const SplitClaim& {
    read.push_back(&held[c].claim);
    return held[c].claim;
  });
  for (const SplitClaim* c : read)
    EXPECT_TRUE(c == &held[0].claim || c == &held[1].claim || c == &held[2].claim || c == &held[3].claim);
  AuditResult copied = audit_claims(p, ids, {held[0].claim, held[1].claim, held[2].claim, held[3].claim});
  EXPECT_EQ(r.unknown_ids, (std::vector<std::string>{"ZZ"}));
  EXPECT_EQ(r.unknown_ids, copied.unknown_ids);
  EXPECT_EQ(r.claimed_items, 3u);
  ASSERT_EQ(r.straddles.size(), 1u);
  EXPECT_EQ(r.straddles[0].unit_key, "mechanism:a");
  EXPECT_EQ(r.straddles[0].members,
            (std::vector<std::pair<std::string, std::string>>{{"test", "A2"}, {"train", "A1"}}));
  EXPECT_EQ(r.straddles[0].members, copied.straddles[0].members);
}

// Archive cases: mechanism and every tag link; tags shared across mechanisms
// join them, and the unit is named by its smallest key.
TEST(Units, ArchiveCasesLinkByMechanismAndTags) {
  auto make = [](std::string id, std::string mechanism, std::vector<std::string> tags) {
    Case c;
    c.id = std::move(id);
    c.mechanism = std::move(mechanism);
    c.evaluation_group = std::move(tags);
    return c;
  };
  std::vector<Case> cases = {make("FA-1", "warmup", {"schedules"}), make("FA-2", "decay", {"schedules", "lr"}),
                             make("FA-3", "clipping", {"norms"}), make("FA-4", "warmup", {"schedules"})};
  UnitBuilder b(4);
  for (std::uint32_t i = 0; i < 4; ++i) link_case(b, i, cases[i]);
  Partition p = std::move(b).build().value();
  EXPECT_EQ(p.unit_keys, (std::vector<std::string>{"group:lr", "group:norms"}));
  EXPECT_EQ(p.unit_of, (std::vector<std::uint32_t>{0, 0, 1, 0}));
}
