// ROC AUC over tied scores
// ========================
//
// The failure. ROC AUC is the probability that a random positive scores
// above a random negative, a tie counting one half. An implementation that
// sorts the samples by score and walks them one at a time, adding the
// positives seen so far for each negative, credits a tied positive-negative
// pair fully or not at all depending on which one the input lists first.
// rdkit issue 2843 reports exactly this for rdkit.ML.Scoring.CalcAUC:
// [(0.5, 1), (0.5, 0)] gives 1.0 and [(0.5, 0), (0.5, 1)] gives 0.0 where
// both should be 0.5, so classifiers with discrete scores (a random forest's
// vote fraction) get order-dependent AUCs.
//
// Why the unsuccessful fix fails. Switching to the rank-sum (Mann-Whitney)
// formula with tied scores sharing their mean rank is right in principle,
// but smartcore issue 373 shows the slip that is easy to make: the tie runs
// are found by comparing neighbours of the input list, while the ranks
// belong to positions of the sorted list. It is right when the input already
// comes in ascending score order, and wrong as soon as it does not, even
// where the row-by-row walk happened to be right.
//
// Why the repair holds. It walks the sorted scores one block of equal scores
// at a time: each negative of a block is beaten by every positive above the
// block and ties with every positive inside it, so twice the pair count grows
// by negatives * (2 * positives above + positives in the block). The count is
// an integer and the result is one int / int true division, correctly rounded
// in Python and in C++ (args::true_divide), whatever formula a correct fix
// uses for the same fraction.
//
// Source: https://github.com/rdkit/rdkit/issues/2843
#include <algorithm>
#include <numeric>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// Indices of scores sorted by score, descending (stable: ties keep input order).
std::vector<std::size_t> descending(const std::vector<double>& scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return -scores[a] < -scores[b]; });
  return order;
}

Result<Value> fraction(std::int64_t twice_pairs, std::int64_t pos, std::int64_t neg, std::int64_t scale) {
  FAILMAP_TRY_ASSIGN(auto d, checked_mul(pos, neg));
  FAILMAP_TRY_ASSIGN(auto d2, checked_mul(d, scale));
  FAILMAP_TRY_ASSIGN(auto out, args::true_divide(twice_pairs, d2));
  return Value::floating(out);
}

Result<Value> broken(const std::vector<double>& scores, args::IntListView labels) {
  if (labels.size() < scores.size()) return input_error("IndexError: list index out of range (labels[i])");
  std::int64_t tp = 0;
  std::int64_t area = 0;
  for (std::size_t i : descending(scores)) {
    if (labels[i] == 1) {
      ++tp;
    } else {
      FAILMAP_TRY_ASSIGN(area, checked_add(area, tp));
    }
  }
  return fraction(area, tp, static_cast<std::int64_t>(scores.size()) - tp, 1);
}

Result<Value> unsuccessful(const std::vector<double>& scores, args::IntListView labels) {
  const std::size_t n = scores.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  std::vector<double> rank(n, 0.0);
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i;
    while (j + 1 < n && scores[j + 1] == scores[i]) ++j;  // neighbours of the input, not of the sorted list
    FAILMAP_TRY_ASSIGN(auto r, args::true_divide(static_cast<std::int64_t>(i + j + 2), 2));
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = r;
    i = j + 1;
  }
  if (labels.size() < n) return input_error("IndexError: list index out of range (labels[k])");
  std::int64_t pos = 0;
  double total = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    if (labels[k] == 1) {
      ++pos;
      total += rank[k];
    }
  }
  const std::int64_t neg = static_cast<std::int64_t>(n) - pos;
  FAILMAP_TRY_ASSIGN(auto pp, checked_mul(pos, pos + 1));
  FAILMAP_TRY_ASSIGN(auto half, args::true_divide(pp, 2));
  FAILMAP_TRY_ASSIGN(auto d, checked_mul(pos, neg));
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total - half, static_cast<double>(d)));
  return Value::floating(out);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& scores, args::IntListView labels) {
  if (labels.size() < scores.size()) return input_error("IndexError: list index out of range (labels[...])");
  const auto order = descending(scores);
  std::int64_t above = 0;
  std::int64_t twice = 0;
  std::size_t i = 0;
  while (i < order.size()) {
    std::int64_t block_pos = 0;
    std::int64_t block_neg = 0;
    std::size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) {
      if (labels[order[j]] == 1) ++block_pos; else ++block_neg;
      ++j;
    }
    FAILMAP_TRY_ASSIGN(auto inner, checked_mul(2, above));
    FAILMAP_TRY_ASSIGN(auto weight, checked_add(inner, block_pos));
    FAILMAP_TRY_ASSIGN(auto add, checked_mul(block_neg, weight));
    FAILMAP_TRY_ASSIGN(twice, checked_add(twice, add));
    above += block_pos;
    i = j;
  }
  return fraction(twice, above, static_cast<std::int64_t>(scores.size()) - above, 2);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_roc_auc_ties() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "roc-auc-ties",
      .title = "ROC AUC over tied scores",
      .source = "https://github.com/rdkit/rdkit/issues/2843",
      .evaluation_group = {"rank-metric-ties"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "ROC AUC of tied scores depends on the order of the input",
              .summary = "ROC AUC of tied scores depends on the order of the input.",
              .root_cause = "The AUC walks the samples sorted by score one at a time, so a tied positive and negative "
                            "count as a full win or a full loss depending on which is listed first.",
              .failure = "The broken path gives different AUCs for the same scores and labels in another order; a "
                         "tied pair never counts one half.",
              .unsuccessful_approach = "A rank-sum AUC whose tie runs are found among neighbours of the input list "
                                       "rather than of the sorted list averages the ranks of the wrong samples.",
              .contract = "Return the ROC AUC of scores against labels (1 positive, 0 negative): over all "
                          "positive-negative pairs, a higher positive score counts 1 and an equal score 1/2, divided "
                          "by positives * negatives.",
              .why_it_matters = "Discrete or saturated scores tie often; an AUC that changes when the evaluation set "
                                "is shuffled makes model comparisons a matter of row order.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(scores, labels):\n"
               "    order = sorted(range(len(scores)), key=lambda i: -scores[i])\n"
               "    tp = 0\n"
               "    area = 0\n"
               "    for i in order:\n"
               "        if labels[i] == 1:\n"
               "            tp += 1\n"
               "        else:\n"
               "            area += tp\n"
               "    return area / (tp * (len(scores) - tp))\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(scores, labels):\n"
               "    n = len(scores)\n"
               "    order = sorted(range(n), key=lambda i: scores[i])\n"
               "    rank = [0.0] * n\n"
               "    i = 0\n"
               "    while i < n:\n"
               "        j = i\n"
               "        while j + 1 < n and scores[j + 1] == scores[i]:\n"
               "            j += 1\n"
               "        for k in range(i, j + 1):\n"
               "            rank[order[k]] = (i + j + 2) / 2\n"
               "        i = j + 1\n"
               "    pos = 0\n"
               "    total = 0.0\n"
               "    for k in range(n):\n"
               "        if labels[k] == 1:\n"
               "            pos += 1\n"
               "            total += rank[k]\n"
               "    return (total - pos * (pos + 1) / 2) / (pos * (n - pos))\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(scores, labels):\n"
               "    order = sorted(range(len(scores)), key=lambda i: -scores[i])\n"
               "    above = 0\n"
               "    twice = 0\n"
               "    i = 0\n"
               "    while i < len(order):\n"
               "        block_pos = 0\n"
               "        block_neg = 0\n"
               "        j = i\n"
               "        while j < len(order) and scores[order[j]] == scores[order[i]]:\n"
               "            if labels[order[j]] == 1:\n"
               "                block_pos += 1\n"
               "            else:\n"
               "                block_neg += 1\n"
               "            j += 1\n"
               "        twice += block_neg * (2 * above + block_pos)\n"
               "        above += block_pos\n"
               "        i = j\n"
               "    return twice / (2 * above * (len(scores) - above))\n"),
          }},
      .fixtures =
          {
              {"ascending scores, a tie at the top", "[0.25]*N+[0.5,0.5],[0]*N+[1,0]", "(2*N+1)/(2*N+2)"},
              {"ascending, all tied but the lowest", "[0.25]+[0.5]*(2*N),[0]+[1,0]*N", "(N+2)/(2*N+2)"},
              {"a tie split by lower scores, positive first", "[0.5]+[0.25]*N+[0.5],[1]+[0]*N+[0]",
               "(2*N+1)/(2*N+2)"},
              {"descending, no tie at the top", "[0.75,0.5]+[0.25]*N,[1,0]+[0]*N", "1.0"},
              {"ties among negatives only", "[0.75,0.25]+[0.5]*N+[0.125],[1,1]+[0]*N+[0]", "(N+2)/(2*N+2)"},
              {"other labels on the same scores", "[0.75,0.25]+[0.5]*N+[0.125],[1,0]+[0]*N+[1]", "0.5"},
              {"a tie split by lower scores, negative first", "[0.5]+[0.25]*N+[0.5],[0]+[0]*N+[1]",
               "(2*N+1)/(2*N+2)"},
          },
  };
  return k_mechanism;
}
