// Metric synced twice
// ===================
//
// The failure. A class-based metric (torchmetrics, or Lightning's metrics
// before it) already reduces its state across processes: the value it
// returns at each step is synchronised over the ranks, by default with
// ReduceOp.SUM of the ranks' batch values. A test_epoch_end that averages
// those step values over the steps and then all_reduces the result again
// counts every rank twice. Lightning-AI/pytorch-lightning issue 3713 shows
// step accuracies of 0.6 to 0.7 turning into an epoch mean of 22.3 and, after
// the extra SUM, 714.7; the answer there was to divide by the world size,
// which still leaves the step-level SUM in the value (W times the mean
// accuracy). That answer is the broken path here.
//
// Why the unsuccessful fix fails. Dividing by the world size once more
// undoes both sums and reports the mean over steps and ranks of the batch
// accuracies. Every batch then counts the same, so an uneven last batch (or
// uneven shards) weighs a handful of samples like a full batch; it is right
// only when every batch has the same size or the same accuracy. (Constructed
// from the thread: the next step after the maintainer's division.)
//
// Why the repair holds. It accumulates the metric's state, correct and total
// counts, over all steps and ranks and divides once, which is what the
// metric's compute() does after its single synchronisation. int / int is
// Python true division, correctly rounded, as args::true_divide; the float
// sums of the other paths run in the loop's order (steps outer, ranks inner).
//
// Source: https://github.com/Lightning-AI/pytorch-lightning/issues/3713
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

// The Python indexes correct[r][s] and total[r][s] for every r, s of the
// first rank's steps: a ragged input is its IndexError.
Status rectangular(const Rows& correct, const Rows& total) {
  if (correct.empty()) return input_error("list index out of range (correct[0])");
  const std::size_t steps = correct[0].size();
  if (total.size() < correct.size()) return input_error("list index out of range (total)");
  for (std::size_t r = 0; r < correct.size(); ++r)
    if (correct[r].size() < steps || total[r].size() < steps)
      return input_error("list index out of range (every rank needs the first rank's steps)");
  return ok_status();
}

// sum over steps of (sum over ranks of correct / total), steps outer.
Result<double> summed_batch_accuracies(const Rows& correct, const Rows& total) {
  const std::size_t steps = correct[0].size();
  double epoch = 0.0;
  for (std::size_t s = 0; s < steps; ++s) {
    double synced = 0.0;
    for (std::size_t r = 0; r < correct.size(); ++r) {
      FAILMAP_TRY_ASSIGN(auto acc, args::true_divide(correct[r][s], total[r][s]));
      synced += acc;
    }
    epoch += synced;
  }
  return epoch;
}

// The broken path's epoch value is all_reduced with SUM once more (the same
// value on every rank, so ranks * value) and divided by the world size.
Result<Value> broken(const Rows& correct, const Rows& total) {
  FAILMAP_TRY(rectangular(correct, total));
  FAILMAP_TRY_ASSIGN(auto epoch, summed_batch_accuracies(correct, total));
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(epoch, static_cast<double>(correct[0].size())));
  double reduced = 0.0;
  for (std::size_t r = 0; r < correct.size(); ++r) reduced += mean;
  FAILMAP_TRY_ASSIGN(auto out, args::divide(reduced, static_cast<double>(correct.size())));
  return Value::floating(out);
}

// The mean over steps and ranks of the batch accuracies: epoch / steps / ranks.
Result<Value> unsuccessful(const Rows& correct, const Rows& total) {
  FAILMAP_TRY(rectangular(correct, total));
  FAILMAP_TRY_ASSIGN(auto epoch, summed_batch_accuracies(correct, total));
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(epoch, static_cast<double>(correct[0].size())));
  FAILMAP_TRY_ASSIGN(auto out, args::divide(mean, static_cast<double>(correct.size())));
  return Value::floating(out);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& correct, const Rows& total) {
  FAILMAP_TRY(rectangular(correct, total));
  std::int64_t hits = 0;
  std::int64_t seen = 0;
  for (std::size_t r = 0; r < correct.size(); ++r) {
    for (std::size_t s = 0; s < correct[0].size(); ++s) {
      FAILMAP_TRY_ASSIGN(hits, checked_add(hits, correct[r][s]));
      FAILMAP_TRY_ASSIGN(seen, checked_add(seen, total[r][s]));
    }
  }
  FAILMAP_TRY_ASSIGN(auto acc, args::true_divide(hits, seen));
  return Value::floating(acc);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_metric_synced_twice() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "metric-synced-twice",
      .title = "Metric synced twice",
      .source = "https://github.com/Lightning-AI/pytorch-lightning/issues/3713",
      .evaluation_group = {"rank-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "An already synchronised metric is reduced across ranks again",
              .summary = "An already synchronised metric is reduced across ranks again.",
              .root_cause = "The metric sums its value over the ranks at every step, and the epoch-end code "
                            "all_reduces the averaged step values a second time.",
              .failure = "The broken path divides the doubly reduced value by the world size once, which leaves "
                         "the step-level sum in it: the reported accuracy is world_size times too large.",
              .unsuccessful_approach = "Dividing by the world size a second time gives the mean of the batch "
                                       "accuracies, which weighs a short last batch like a full one.",
              .contract = "Given correct and total counts per rank and step, return the accuracy over every "
                          "sample of every rank: all correct counts divided by all totals.",
              .why_it_matters = "An accuracy above 1.0 is caught at once, but the mean of batch accuracies looks "
                                "plausible and silently drifts with the batch layout and the world size.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(correct, total):\n"
               "    ranks = len(correct)\n"
               "    steps = len(correct[0])\n"
               "    epoch = 0.0\n"
               "    for s in range(steps):\n"
               "        synced = 0.0\n"
               "        for r in range(ranks):\n"
               "            synced += correct[r][s] / total[r][s]\n"
               "        epoch += synced\n"
               "    epoch = epoch / steps\n"
               "    reduced = 0.0\n"
               "    for r in range(ranks):\n"
               "        reduced += epoch\n"
               "    return reduced / ranks\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(correct, total):\n"
               "    ranks = len(correct)\n"
               "    steps = len(correct[0])\n"
               "    epoch = 0.0\n"
               "    for s in range(steps):\n"
               "        synced = 0.0\n"
               "        for r in range(ranks):\n"
               "            synced += correct[r][s] / total[r][s]\n"
               "        epoch += synced\n"
               "    epoch = epoch / steps\n"
               "    return epoch / ranks\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(correct, total):\n"
               "    hits = 0\n"
               "    seen = 0\n"
               "    for r in range(len(correct)):\n"
               "        for s in range(len(correct[0])):\n"
               "            hits += correct[r][s]\n"
               "            seen += total[r][s]\n"
               "    return hits / seen\n"),
          }},
      .fixtures =
          {
              {"uneven last batch, two ranks", "[[2*N,1],[2*N,0]],[[2*N,1],[2*N,1]]", "(4*N+1)/(4*N+2)"},
              {"equal batches, two ranks", "[[2*N,N],[N,0]],[[2*N,2*N],[2*N,2*N]]", "0.5"},
              {"single rank, short last batch", "[[N,1]],[[2*N,1]]", "(N+1)/(2*N+1)"},
              {"all correct", "[[N,1],[N,1]],[[N,1],[N,1]]", "1.0"},
              {"nothing correct", "[[0,0],[0,0]],[[N,1],[1,N]]", "0.0"},
              {"three ranks, one step", "[[N],[0],[N+1]],[[N],[N],[N+1]]", "(2*N+1)/(3*N+1)"},
              {"three ranks, short last batch", "[[N,0],[N,1],[N,1]],[[N,1],[N,1],[N,1]]", "(3*N+2)/(3*N+3)"},
      },
  };
  return k_mechanism;
}
