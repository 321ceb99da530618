// Class weighted loss mean
// ========================
//
// The failure. CrossEntropyLoss(weight=w, reduction='mean') is a weighted
// mean: each sample's loss is multiplied by the weight of its target class
// and the sum is divided by the sum of those same weights, so a batch of one
// class is not scaled by that class's weight. Code that needs per-sample
// losses takes reduction='none', multiplies, and calls .mean(), dividing by
// the number of samples instead; the loss is then the weighted sum over
// the count, which PyTorch issue 40560 reports as "'mean' reduction result
// in CrossEntropyLoss mismatches with manually computing mean". The broken
// path is that manual mean.
//
// Why the unsuccessful fix fails. Dividing by the sum of the class weight
// vector (weight.sum(), the normalisation in focal_loss_torch issue 18 and a
// common reading of "weighted mean") is constructed here as the unsuccessful
// fix: it agrees with the weighted mean exactly when every class appears once
// in the batch, and otherwise divides by the weights of classes that are not
// there and counts repeated classes once.
//
// Why the repair holds. Numerator and denominator run over the same
// samples: sum of w[target] * loss divided by sum of w[target], the formula
// PyTorch PR 40991 added to the documentation. A zero-weight class then drops
// out entirely, and uniform weights give the plain mean. Indexing follows
// Python: a negative target counts from the end, one out of range is an
// Error (IndexError).
//
// Source: https://github.com/pytorch/pytorch/issues/40560
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Floats = std::vector<double>;

enum class Denominator { Count, ClassWeights, TargetWeights };

Result<Value> weighted_mean(const Floats& losses, args::IntListView targets, const Floats& weight,
                            Denominator denominator) {
  const std::int64_t classes = args::length(weight);
  double total = 0.0;
  double target_weights = 0.0;
  std::int64_t count = 0;
  const std::size_t n = std::min(losses.size(), targets.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t t = targets[i];
    if (t < 0) t += classes;
    if (t < 0 || t >= classes) return input_error("IndexError: list index out of range");
    const double w = weight[static_cast<std::size_t>(t)];
    total += w * losses[i];
    target_weights += w;
    ++count;
  }
  double den = static_cast<double>(count);
  if (denominator == Denominator::TargetWeights) den = target_weights;
  if (denominator == Denominator::ClassWeights) {
    den = 0.0;
    for (double w : weight) den += w;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, den));
  return Value::floating(out);
}

Result<Value> broken(const Floats& losses, args::IntListView targets, const Floats& weight) {
  return weighted_mean(losses, targets, weight, Denominator::Count);
}
Result<Value> unsuccessful(const Floats& losses, args::IntListView targets, const Floats& weight) {
  return weighted_mean(losses, targets, weight, Denominator::ClassWeights);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const Floats& losses, args::IntListView targets, const Floats& weight) {
  return weighted_mean(losses, targets, weight, Denominator::TargetWeights);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_class_weighted_loss_mean() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "class-weighted-loss-mean",
      .title = "Class weighted loss mean",
      .source = "https://github.com/pytorch/pytorch/issues/40560",
      .evaluation_group = {"cross-entropy-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A class-weighted loss is averaged over the sample count",
              .summary = "A class-weighted loss is averaged over the sample count.",
              .root_cause = "The weighted per-sample losses are summed over the batch but divided by the number of "
                            "samples, not by the sum of the weights applied.",
              .failure = "The broken path returns sum(w[target] * loss) / len(losses), which scales the loss by the "
                         "average weight of the classes in the batch.",
              .unsuccessful_approach = "Dividing by the sum of the whole class weight vector is right only when "
                                       "every class appears exactly once in the batch.",
              .contract = "Return sum(weight[t] * loss) / sum(weight[t]) over the samples, t being each sample's "
                          "target class, as CrossEntropyLoss(weight=..., reduction='mean') defines it.",
              .why_it_matters = "Class weights meant to rebalance rare classes instead rescale the learning rate "
                                "from batch to batch with the batch's class mix.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, targets, weight):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for loss, t in zip(losses, targets):\n"
               "        total += weight[t] * loss\n"
               "        count += 1\n"
               "    return total / count\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, targets, weight):\n"
               "    total = 0.0\n"
               "    for loss, t in zip(losses, targets):\n"
               "        total += weight[t] * loss\n"
               "    den = 0.0\n"
               "    for w in weight:\n"
               "        den += w\n"
               "    return total / den\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, targets, weight):\n"
               "    total = 0.0\n"
               "    den = 0.0\n"
               "    for loss, t in zip(losses, targets):\n"
               "        total += weight[t] * loss\n"
               "        den += weight[t]\n"
               "    return total / den\n"),
          }},
      .fixtures =
          {
              {"one sample of each class", "[1.0*N,2.0,3.0],[0,1,2],[2.0,4.0,6.0]", "(2.0*N+26.0)/12.0"},
              {"one class repeated", "[1.0*N,3.0],[1,1],[1.0,4.0]", "(4.0*N+12.0)/8.0"},
              {"unit weights", "[2.0*N,4.0,6.0],[0,1,1],[1.0,1.0]", "(2.0*N+10.0)/3.0"},
              {"single sample", "[5.0*N],[0],[0.5,2.0]", "5.0*N"},
              {"zero-weight class", "[1.0,9.0*N],[0,1],[1.0,0.0]", "1.0"},
              {"absent class", "[2.0*N,4.0*N],[0,0],[3.0,1.0]", "3.0*N"},
              {"equal weights, shuffled classes", "[1.0,2.0,3.0*N],[2,0,1],[2.0,2.0,2.0]", "(6.0+6.0*N)/6.0"},
          },
  };
  return k_mechanism;
}
