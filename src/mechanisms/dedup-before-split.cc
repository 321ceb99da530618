// Duplicates split across train and test
// =======================================
//
// The failure. A dataset with repeated rows is split into train and test
// before it is deduplicated, so copies of one row land on both sides and the
// test score partly measures memorisation. TelecomsXChangeAPi/OpenTextShield
// issue 194 reports it for an SMS spam dataset: 7,718 duplicate rows (5.4%),
// and under the project's split 7.4% of the test set also appeared in the
// training set; after deduplicating first the overlap was 0 (pull request
// 195). Items [5, 6, 5] with one test item give train [5, 6], test [5]: one
// leaked test item.
//
// Why the unsuccessful fix fails. Deduplicating each split after the split,
// as the drop_duplicates-per-split recipe in embeddings-benchmark/mteb issue
// 1036 does, removes repeats inside train and inside test but cannot see a
// row that sits on both sides, so the leak stays; and the split sizes depend
// on where the copies happened to fall. (Constructed from that recipe.)
//
// Why the repair holds. It removes exact duplicates first, keeping each
// value's first occurrence in order, and only then takes the last n_test
// unique items as the test set; no value can then be on both sides. The
// report [train size, test size, leaked test items, duplicates removed] is all
// integers, so the C++ gives the Python's values exactly.
//
// Source: https://github.com/TelecomsXChangeAPi/OpenTextShield/issues/194
#include <set>
#include <tuple>
#include <utility>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Order { SplitOnly, SplitThenDedup, DedupThenSplit };

using Ints = std::vector<std::int64_t>;

// xs[:len(xs) - k] and xs[len(xs) - k:] with Python's slicing of a negative or
// too large bound.
Result<std::pair<Ints, Ints>> split_tail(const Ints& xs, std::int64_t k) {
  const auto n = static_cast<std::int64_t>(xs.size());
  FAILMAP_TRY_ASSIGN(std::int64_t cut, checked_sub(n, k));
  if (cut < 0) cut += n;
  if (cut < 0) cut = 0;
  if (cut > n) cut = n;
  return std::pair<Ints, Ints>{Ints(xs.begin(), xs.begin() + cut), Ints(xs.begin() + cut, xs.end())};
}

Ints dedup(const Ints& xs) {
  std::set<std::int64_t> seen;
  Ints out;
  for (auto x : xs)
    if (seen.insert(x).second) out.push_back(x);
  return out;
}

Result<Value> report(args::IntListView items, std::int64_t n_test, Order order) {
  const Ints all(items.begin(), items.end());
  Ints train, test;
  std::int64_t removed = 0;
  if (order == Order::DedupThenSplit) {
    const Ints unique = dedup(all);
    removed = static_cast<std::int64_t>(all.size() - unique.size());
    FAILMAP_TRY_ASSIGN(auto parts, split_tail(unique, n_test));
    std::tie(train, test) = parts;
  } else {
    FAILMAP_TRY_ASSIGN(auto parts, split_tail(all, n_test));
    std::tie(train, test) = parts;
    if (order == Order::SplitThenDedup) {
      const Ints utrain = dedup(train), utest = dedup(test);
      removed = static_cast<std::int64_t>(train.size() - utrain.size() + test.size() - utest.size());
      train = utrain;
      test = utest;
    }
  }
  const std::set<std::int64_t> in_train(train.begin(), train.end());
  std::int64_t leaked = 0;
  for (auto x : test)
    if (in_train.count(x)) ++leaked;
  return Value::list({Value::integer(static_cast<std::int64_t>(train.size())),
                      Value::integer(static_cast<std::int64_t>(test.size())), Value::integer(leaked),
                      Value::integer(removed)});
}

Result<Value> broken(args::IntListView items, std::int64_t n_test) { return report(items, n_test, Order::SplitOnly); }

Result<Value> unsuccessful(args::IntListView items, std::int64_t n_test) {
  return report(items, n_test, Order::SplitThenDedup);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView items, std::int64_t n_test) {
  return report(items, n_test, Order::DedupThenSplit);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_dedup_before_split() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "dedup-before-split",
      .title = "Duplicates split across train and test",
      .source = "https://github.com/TelecomsXChangeAPi/OpenTextShield/issues/194",
      .evaluation_group = {"split-leakage"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Copies of one row land in both the train and the test split",
              .summary = "Copies of one row land in both the train and the test split.",
              .root_cause = "The dataset is split before duplicates are removed, so copies of a row can fall on "
                            "both sides of the split.",
              .failure = "The broken path leaves test items whose exact copies are in the training set, and the "
                         "test score partly measures memorisation.",
              .unsuccessful_approach = "Deduplicating train and test separately after the split removes repeats "
                                       "within each side but not a row present on both.",
              .contract = "Return [train size, test size, test items whose value is also in train, duplicates "
                          "removed]: first drop repeated values keeping each first occurrence in order, then the "
                          "last n_test remaining items are the test set and the others the train set.",
              .why_it_matters = "Leaked duplicates inflate the test score by exactly the share of the test set the "
                                "model has already seen, and the inflation grows with the duplication rate.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(items, n_test):\n"
               "    cut = len(items) - n_test\n"
               "    train = items[:cut]\n"
               "    test = items[cut:]\n"
               "    seen = set(train)\n"
               "    leaked = len([x for x in test if x in seen])\n"
               "    return [len(train), len(test), leaked, 0]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def dedup(xs):\n"
               "    out = []\n"
               "    for x in xs:\n"
               "        if x not in out:\n"
               "            out.append(x)\n"
               "    return out\n"
               "def solve(items, n_test):\n"
               "    cut = len(items) - n_test\n"
               "    train = dedup(items[:cut])\n"
               "    test = dedup(items[cut:])\n"
               "    removed = len(items) - len(train) - len(test)\n"
               "    seen = set(train)\n"
               "    leaked = len([x for x in test if x in seen])\n"
               "    return [len(train), len(test), leaked, removed]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(items, n_test):\n"
               "    unique = []\n"
               "    seen = set()\n"
               "    for x in items:\n"
               "        if x not in seen:\n"
               "            seen.add(x)\n"
               "            unique.append(x)\n"
               "    cut = len(unique) - n_test\n"
               "    train = unique[:cut]\n"
               "    test = unique[cut:]\n"
               "    in_train = set(train)\n"
               "    leaked = len([x for x in test if x in in_train])\n"
               "    return [len(train), len(test), leaked, len(items) - len(unique)]\n"),
          }},
      .fixtures =
          {
              {"a duplicate on both sides", "[5]*N+[6]*N+[5],1", "[1,1,0,2*N-1]"},
              {"repeats only before the split point", "[1]*(N+1)+[2,3],2", "[1,2,0,N]"},
              {"a repeat in the test part", "[7]*N+[8,7],2", "[0,2,0,N]"},
              {"repeats before the split, one test item", "[1]*(N+1)+[2,3],1", "[2,1,0,N]"},
              {"the first item repeated at the end", "[1]*(N+1)+[2,1],1", "[1,1,0,N+1]"},
              {"no duplicates", "[N,N+1,N+2],1", "[2,1,0,0]"},
              {"every item the same", "[4]*(N+1),1", "[0,1,0,N]"},
          },
  };
  return k_mechanism;
}
