// Top-k accuracy that counts ties as hits
// =======================================
//
// The failure. Top-k accuracy asks whether the true class is among the k
// highest-scoring classes. tf.nn.in_top_k counts the label as inside the top
// k whenever fewer than k classes score STRICTLY higher, so every class tied
// with the k-th place is inside: a network that outputs the same score for
// every class, [0.2, 0.2, 0.2, 0.2, 0.2], is 100% top-1 accurate.
// blue-oil/blueoil pull request 58 changed its accuracy metric for this
// reason (a broken loss or a too-high learning rate produces exactly such
// flat outputs), and tensorflow/tensorflow issue 13005 calls the tie rule "a
// major flaw, which leads to misleading metrics".
//
// Why the unsuccessful fix fails. Ranking the classes with a stable sort by
// score (argsort, topk) and checking whether the label is among the first k
// no longer credits every tie, but it resolves a tie by class index: a label
// that is listed before its tied competitors counts as a hit, the same label
// listed after them as a miss. The metric then depends on the order of the
// class list. (Constructed: the common top-k-by-sorting implementation.)
//
// Why the repair holds. Ties are resolved against the label: it is a hit
// only if fewer than k OTHER classes score at least as high as it does. The
// result does not depend on class order, and flat outputs score 0. Accuracy
// is hits / samples, one int / int true division in Python and in C++.
//
// Source: https://github.com/blue-oil/blueoil/pull/58
#include <algorithm>
#include <numeric>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<double>>;

enum class Ties { CountAsHit, ByClassIndex, AgainstLabel };

Result<bool> hit(const std::vector<double>& s, std::int64_t label, std::int64_t k, Ties ties) {
  const auto c = static_cast<std::int64_t>(s.size());
  std::int64_t idx = label < 0 ? label + c : label;  // Python's negative index
  if (idx < 0 || idx >= c) return input_error("IndexError: list index out of range (scores[label])");
  const double mine = s[static_cast<std::size_t>(idx)];
  if (ties == Ties::ByClassIndex) {
    std::vector<std::int64_t> order(s.size());
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t a, std::int64_t b) { return -s[static_cast<std::size_t>(a)] < -s[static_cast<std::size_t>(b)]; });
    // label in order[:k], with Python's slice bound for a negative k
    std::int64_t end = k < 0 ? k + c : k;
    if (end < 0) end = 0;
    if (end > c) end = c;
    for (std::int64_t i = 0; i < end; ++i)
      if (order[static_cast<std::size_t>(i)] == label) return true;
    return false;
  }
  std::int64_t ahead = 0;
  for (std::int64_t j = 0; j < c; ++j) {
    const double v = s[static_cast<std::size_t>(j)];
    if (ties == Ties::CountAsHit ? v > mine : (j != label && v >= mine)) ++ahead;  // c != y compares the raw label
  }
  return ahead < k;
}

Result<Value> accuracy(const Rows& scores, args::IntListView labels, std::int64_t k, Ties ties) {
  std::int64_t hits = 0;
  const std::size_t n = std::min(scores.size(), labels.size());
  for (std::size_t i = 0; i < n; ++i) {
    FAILMAP_TRY_ASSIGN(auto h, hit(scores[i], labels[i], k, ties));
    if (h) ++hits;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::true_divide(hits, static_cast<std::int64_t>(labels.size())));
  return Value::floating(out);
}

Result<Value> broken(const Rows& scores, args::IntListView labels, std::int64_t k) {
  return accuracy(scores, labels, k, Ties::CountAsHit);
}

Result<Value> unsuccessful(const Rows& scores, args::IntListView labels, std::int64_t k) {
  return accuracy(scores, labels, k, Ties::ByClassIndex);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& scores, args::IntListView labels, std::int64_t k) {
  return accuracy(scores, labels, k, Ties::AgainstLabel);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_topk_accuracy_ties() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "topk-accuracy-ties",
      .title = "Top-k accuracy that counts ties as hits",
      .source = "https://github.com/blue-oil/blueoil/pull/58",
      .evaluation_group = {"rank-metric-ties"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Top-k accuracy credits every class tied with the k-th place",
              .summary = "Top-k accuracy credits every class tied with the k-th place.",
              .root_cause = "The label counts as inside the top k when fewer than k classes score strictly higher, "
                            "so a label tied with the k-th class is always a hit.",
              .failure = "The broken path reports 100% accuracy for outputs that score every class the same, and "
                         "inflates accuracy whenever scores tie.",
              .unsuccessful_approach = "Taking the first k classes of a stable sort by score resolves ties by class "
                                       "index, so the same scores are a hit or a miss depending on class order.",
              .contract = "Return top-k accuracy: a sample is a hit when fewer than k classes other than its label "
                          "score at least as high as the label's score; hits divided by the number of samples.",
              .why_it_matters = "Flat or saturated outputs are the symptom of a broken model; a metric that rewards "
                                "them hides the failure it should reveal.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(scores, labels, k):\n"
               "    hits = 0\n"
               "    for s, y in zip(scores, labels):\n"
               "        higher = len([v for v in s if v > s[y]])\n"
               "        if higher < k:\n"
               "            hits += 1\n"
               "    return hits / len(labels)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(scores, labels, k):\n"
               "    hits = 0\n"
               "    for s, y in zip(scores, labels):\n"
               "        order = sorted(range(len(s)), key=lambda c: -s[c])\n"
               "        if y in order[:k]:\n"
               "            hits += 1\n"
               "    return hits / len(labels)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(scores, labels, k):\n"
               "    hits = 0\n"
               "    for s, y in zip(scores, labels):\n"
               "        rivals = len([c for c in range(len(s)) if c != y and s[c] >= s[y]])\n"
               "        if rivals < k:\n"
               "            hits += 1\n"
               "    return hits / len(labels)\n"),
          }},
      .fixtures =
          {
              {"every class scored the same", "[[0.25,0.25,0.25,0.25]]*N+[[0.5,0.25,0.125,0.125]],[0]*N+[0],1",
               "1/(N+1)"},
              {"a tie for last place, the label listed last", "[[0.5,0.25,0.25]]*N+[[0.5,0.25,0.125]],[2]*N+[0],2",
               "1/(N+1)"},
              {"ties listed both ways", "[[0.5,0.25,0.25]]*N+[[0.25,0.25,0.5]],[2]*N+[0],2", "0.0"},
              {"no ties", "[[0.5,0.25,0.125]]*(N+1)+[[0.125,0.25,0.5]],[1]*(N+1)+[0],2", "(N+1)/(N+2)"},
              {"no ties, top 1", "[[0.5,0.25,0.125]]*(N+1)+[[0.125,0.25,0.5]],[1]*(N+1)+[0],1", "0.0"},
              {"no ties, other labels", "[[0.5,0.25,0.125]]*(N+1)+[[0.125,0.25,0.5]],[2]*(N+1)+[2],2", "1/(N+2)"},
              {"no ties, other scores", "[[0.25,0.5,0.125]]*(N+1)+[[0.5,0.25,0.125]],[1]*(N+1)+[0],2", "1.0"},
          },
  };
  return k_mechanism;
}
