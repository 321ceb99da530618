// Mean average precision over the retrieved hits only
// ===================================================
//
// The failure. Average precision of a ranked result list is the sum, over
// the ranks k holding a relevant item, of the precision at k, divided by the
// number of relevant items the query has; relevant items never retrieved
// contribute 0. thuml/HashNet's mean_average_precision divided by the number
// of relevant items found in the returned list, and left out of the mean the
// queries that found none (thuml/HashNet issue 2): a query with two relevant
// items that retrieves one at rank 1 scores 1.0 instead of 0.5, and a query
// that retrieves nothing does not lower the mean at all.
//
// Why the unsuccessful fix fails. The maintainers' first fix in that thread
// counted the queries without a hit as 0, which the reporter then showed was
// half the problem: the denominator was still the number of hits, so every
// query that misses part of its relevant items still scores as if it had
// found them all. deepset-ai/haystack pull request 12255 fixes the same
// denominator in another evaluator.
//
// Why the repair holds. Each query's AP divides by its own total of relevant
// items (0.0 for a query with none), and the mean runs over all queries. The
// contract fixes the operation order: per query, the precisions hits / k are
// added in rank order and the sum divided once; the APs are added in query
// order and divided once. The C++ performs the same IEEE operations in the
// same order as the Python, so the doubles agree.
//
// Source: https://github.com/thuml/HashNet/issues/2
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

enum class Denominator { HitsSkipEmpty, HitsZeroEmpty, TotalRelevant };

Result<Value> mean_ap(const Rows& relevance, args::IntListView total_relevant, Denominator d) {
  double total = 0.0;
  std::int64_t counted = 0;
  const std::size_t n = std::min(relevance.size(), total_relevant.size());
  for (std::size_t q = 0; q < n; ++q) {
    std::int64_t hits = 0;
    double ap = 0.0;
    const auto& flags = relevance[q];
    for (std::size_t k = 0; k < flags.size(); ++k) {
      if (flags[k] != 1) continue;
      ++hits;
      FAILMAP_TRY_ASSIGN(auto p, args::true_divide(hits, static_cast<std::int64_t>(k + 1)));
      ap += p;
    }
    const std::int64_t r = total_relevant[q];
    if (d == Denominator::TotalRelevant) {
      if (r != 0) {
        FAILMAP_TRY_ASSIGN(auto v, args::divide(ap, static_cast<double>(r)));
        total += v;
      }
      ++counted;
    } else if (hits != 0) {
      FAILMAP_TRY_ASSIGN(auto v, args::divide(ap, static_cast<double>(hits)));
      total += v;
      ++counted;
    } else if (d == Denominator::HitsZeroEmpty) {
      ++counted;
    }
  }
  const std::int64_t queries = d == Denominator::TotalRelevant ? static_cast<std::int64_t>(relevance.size()) : counted;
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(queries)));
  return Value::floating(out);
}

Result<Value> broken(const Rows& relevance, args::IntListView total_relevant) {
  return mean_ap(relevance, total_relevant, Denominator::HitsSkipEmpty);
}

Result<Value> unsuccessful(const Rows& relevance, args::IntListView total_relevant) {
  return mean_ap(relevance, total_relevant, Denominator::HitsZeroEmpty);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& relevance, args::IntListView total_relevant) {
  return mean_ap(relevance, total_relevant, Denominator::TotalRelevant);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_map_relevant_denominator() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "map-relevant-denominator",
      .title = "Mean average precision over the retrieved hits only",
      .source = "https://github.com/thuml/HashNet/issues/2",
      .evaluation_group = {"retrieval-average-precision"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Average precision divides by the relevant items retrieved, not by all relevant items",
              .summary = "Average precision divides by the relevant items retrieved, not by all relevant items.",
              .root_cause = "Each query's summed precision is divided by the number of hits in its result list, and "
                            "queries without a hit are left out of the mean.",
              .failure = "The broken path scores a query that finds one of its two relevant items at rank 1 as "
                         "perfect and ignores queries that find nothing, so retrieval looks better than it is.",
              .unsuccessful_approach = "Counting queries without a hit as 0 fixes the mean over queries but keeps "
                                       "the number of hits as each query's denominator.",
              .contract = "Return the mean average precision: per query, add hits / k (true division) in rank order "
                          "over the 1-based ranks k that hold a relevant item (flag 1), then divide once by the "
                          "query's total_relevant (AP 0.0 if it is 0); add the APs in query order and divide once by "
                          "the number of queries.",
              .why_it_matters = "Retrieval and hashing papers compare methods by mAP; a denominator that ignores "
                                "missed items rewards returning short lists.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(relevance, total_relevant):\n"
               "    aps = []\n"
               "    for flags, r in zip(relevance, total_relevant):\n"
               "        hits = 0\n"
               "        ap = 0.0\n"
               "        for k in range(len(flags)):\n"
               "            if flags[k] == 1:\n"
               "                hits += 1\n"
               "                ap += hits / (k + 1)\n"
               "        if hits != 0:\n"
               "            aps.append(ap / hits)\n"
               "    total = 0.0\n"
               "    for a in aps:\n"
               "        total += a\n"
               "    return total / len(aps)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(relevance, total_relevant):\n"
               "    aps = []\n"
               "    for flags, r in zip(relevance, total_relevant):\n"
               "        hits = 0\n"
               "        ap = 0.0\n"
               "        for k in range(len(flags)):\n"
               "            if flags[k] == 1:\n"
               "                hits += 1\n"
               "                ap += hits / (k + 1)\n"
               "        aps.append(ap / hits if hits != 0 else 0.0)\n"
               "    total = 0.0\n"
               "    for a in aps:\n"
               "        total += a\n"
               "    return total / len(aps)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(relevance, total_relevant):\n"
               "    total = 0.0\n"
               "    for flags, r in zip(relevance, total_relevant):\n"
               "        hits = 0\n"
               "        ap = 0.0\n"
               "        for k in range(len(flags)):\n"
               "            if flags[k] == 1:\n"
               "                hits += 1\n"
               "                ap += hits / (k + 1)\n"
               "        if r != 0:\n"
               "            total += ap / r\n"
               "    return total / len(relevance)\n"),
          }},
      .fixtures =
          {
              {"relevant items never retrieved", "[[1,0]]*N+[[1,1]]+[[0,0]],[2]*N+[2]+[2]", "(0.5*N+1)/(N+2)"},
              {"a query without a hit", "[[1,1]]*N+[[0,0]],[2]*N+[2]", "N/(N+1)"},
              {"every relevant item retrieved", "[[0,1]]*N+[[1,0,1]],[1]*N+[2]", "(0.5*N+(1+2/3)/2)/(N+1)"},
              {"more relevant items than retrieved", "[[0,1]]*N+[[1,0,1]],[2]*N+[2]", "(0.25*N+(1+2/3)/2)/(N+1)"},
              {"one query misses one of two", "[[1,1]]*N+[[1,0]],[2]*N+[2]", "(N+0.5)/(N+1)"},
              {"a missed item and a late hit", "[[1,0,0]]*N+[[0,0,1]],[2]*N+[1]", "(0.5*N+1/3)/(N+1)"},
              {"a single query with a hit", "[[0,0]]*N+[[0,1]],[1]*N+[1]", "0.5/(N+1)"},
          },
  };
  return k_mechanism;
}
