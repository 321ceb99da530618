// Macro average over absent classes
// =================================
//
// The failure. A macro-averaged metric averages a per-class score over the
// classes. torchmetrics' multiclass metrics average over all num_classes
// declared classes, and a class that occurs in neither the targets nor the
// predictions scores 0, so a perfect prediction on a batch that holds only
// some of the classes reports less than 1.0, and the same predictions score
// lower the more classes are declared: Lightning-AI/torchmetrics issue 1664
// shows F1 0.778 with num_classes=3 falling to 0.292 with num_classes=8 for
// the same four samples. Here the per-class score is recall: [0, 0, 1] right
// on every sample with num_classes=3 reports 2/3.
//
// Why the unsuccessful fix fails. Switching to average="micro" removes the
// dependence on absent classes, as suggested in the absent-score discussion
// (https://github.com/Lightning-AI/torchmetrics/issues/1445: "micro is a more
// natural extension of the binary case"). But micro-averaged recall is plain
// accuracy: it weights classes by their support, so a rare class the model
// misses barely moves it. It equals the macro average only when the per-class
// recalls agree.
//
// Why the repair holds. It keeps the macro average but over the labels that
// occur in the targets or the predictions, as scikit-learn's recall_score
// does by default; a label that is only predicted has no support and scores
// 0.0 (zero_division=0). Per-class recall is int / int true division; the sum
// runs over the labels in ascending order, in C++ as in the Python loop.
//
// Source: https://github.com/Lightning-AI/torchmetrics/issues/1664
#include <algorithm>
#include <set>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  args::IntListView preds;
  args::IntListView target;
  std::int64_t num_classes;
  std::size_t pairs() const { return std::min(preds.size(), target.size()); }
};

// Recall of class c over zip(preds, target); 0.0 without support.
Result<double> recall(const Input& in, std::int64_t c) {
  std::int64_t support = 0;
  std::int64_t hits = 0;
  for (std::size_t i = 0; i < in.pairs(); ++i) {
    if (in.target[i] != c) continue;
    ++support;
    if (in.preds[i] == c) ++hits;
  }
  if (support == 0) return 0.0;
  return args::true_divide(hits, support);
}

Result<Value> mean_recall(const Input& in, const std::vector<std::int64_t>& labels, std::int64_t denominator) {
  double total = 0.0;
  for (std::int64_t c : labels) {
    FAILMAP_TRY_ASSIGN(auto r, recall(in, c));
    total += r;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(denominator)));
  return Value::floating(out);
}

Result<Value> broken(args::IntListView preds, args::IntListView target, std::int64_t num_classes) {
  std::vector<std::int64_t> labels;
  for (std::int64_t c = 0; c < num_classes; ++c) labels.push_back(c);
  return mean_recall({preds, target, num_classes}, labels, num_classes);
}

Result<Value> unsuccessful(args::IntListView preds, args::IntListView target, std::int64_t /*num_classes*/) {
  const std::size_t pairs = std::min(preds.size(), target.size());
  std::int64_t hits = 0;
  for (std::size_t i = 0; i < pairs; ++i)
    if (preds[i] == target[i]) ++hits;
  FAILMAP_TRY_ASSIGN(auto out, args::true_divide(hits, static_cast<std::int64_t>(target.size())));
  return Value::floating(out);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView preds, args::IntListView target, std::int64_t num_classes) {
  std::set<std::int64_t> present(preds.begin(), preds.end());
  present.insert(target.begin(), target.end());
  const std::vector<std::int64_t> labels(present.begin(), present.end());
  return mean_recall({preds, target, num_classes}, labels, args::length(labels));
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_macro_average_absent_classes() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "macro-average-absent-classes",
      .title = "Macro average over absent classes",
      .source = "https://github.com/Lightning-AI/torchmetrics/issues/1664",
      .evaluation_group = {"class-averaging"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Classes absent from the batch pull down the macro average",
              .summary = "Classes absent from the batch pull down the macro average.",
              .root_cause = "The macro average runs over every declared class, and a class with neither targets "
                            "nor predictions scores 0.",
              .failure = "The broken path divides the summed per-class recall by num_classes, so perfect "
                         "predictions score below 1.0 and the score falls as more classes are declared.",
              .unsuccessful_approach = "Switching to micro averaging ignores absent classes but weights classes "
                                       "by support, so a missed rare class barely counts.",
              .contract = "Return the macro-averaged recall over the labels that occur in the targets or the "
                          "predictions, a label without targets scoring 0.0.",
              .why_it_matters = "Macro averages are chosen to make rare classes count; a score that depends on "
                                "num_classes or collapses to accuracy defeats that purpose.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def recall(preds, target, c):\n"
               "    support = 0\n"
               "    hits = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if t == c:\n"
               "            support += 1\n"
               "            if p == c:\n"
               "                hits += 1\n"
               "    return hits / support if support else 0.0\n"
               "def solve(preds, target, num_classes):\n"
               "    total = 0.0\n"
               "    for c in range(num_classes):\n"
               "        total += recall(preds, target, c)\n"
               "    return total / num_classes\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(preds, target, num_classes):\n"
               "    hits = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if p == t:\n"
               "            hits += 1\n"
               "    return hits / len(target)\n"},
              FAILMAP_REPAIRED(repaired,
               "def recall(preds, target, c):\n"
               "    support = 0\n"
               "    hits = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if t == c:\n"
               "            support += 1\n"
               "            if p == c:\n"
               "                hits += 1\n"
               "    return hits / support if support else 0.0\n"
               "def solve(preds, target, num_classes):\n"
               "    labels = sorted(set(preds) | set(target))\n"
               "    total = 0.0\n"
               "    for c in labels:\n"
               "        total += recall(preds, target, c)\n"
               "    return total / len(labels)\n"),
          }},
      .fixtures =
          {
              {"absent class", "[0]*N+[1]+[0]*N,[0]*N+[1]*(N+1),3", "(1.0+1/(N+1))/2"},
              {"imbalanced classes", "[0]*(3*N)+[1]*N+[0],[0]*(3*N)+[1]*(N+1),2", "(1.0+N/(N+1))/2"},
              {"imbalanced, a class absent", "[0]*(3*N)+[1]*N+[0],[0]*(3*N)+[1]*(N+1),4", "(1.0+N/(N+1))/2"},
              {"every class right", "[0,1,2]*N,[0,1,2]*N,3", "1.0"},
              {"a class only predicted", "[2]+[0]*N,[1]+[0]*N,3", "1/3"},
              {"many absent classes", "[1]*N,[1]*N,N+2", "1.0"},
              {"half right in each class", "[0,1,1,0]*N+[0],[0,0,1,1]*N+[0],2", "((N+1)/(2*N+1)+0.5)/2"},
      },
  };
  return k_mechanism;
}
