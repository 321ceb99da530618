// F1 averaged over batches
// ========================
//
// The failure. F1 is not a mean of per-sample values: it is 2 * TP /
// (2 * TP + FP + FN) over the whole evaluation set. Keras 1.x computed its
// fmeasure, precision and recall metrics on every batch and reported the mean
// of the batch values. keras-team/keras issue 4592 gives the counterexample:
// labels [0, 0 | 1, 1] predicted [0, 1 | 0, 1] in batches of 2 give batch
// recalls 0 and 0.5, a mean of 0.25, where the recall of the set is 0.5; Keras
// 2.0 removed the metrics for it (issue 5794: "global metrics that were
// approximated batch-wise"). Here the metric object counts its update() calls
// and reports [updates, F1].
//
// Why the unsuccessful fix fails. Leaving out the batches whose F1 is
// undefined (no positive label and no positive prediction: 0 / 0), as the
// mean average precision of thuml/HashNet issue 2 left out queries without a
// hit, stops empty batches from pulling the mean to 0. It is still a mean of
// batch ratios: batches with different F1s, a short final batch, or a batch
// holding only a false positive still skew it. (Constructed from that
// pattern; the Keras threads end with "compute it on the whole set".)
//
// Why the repair holds. The metric state is the three counts; update() adds a
// batch's TP, FP and FN, and compute() forms 2 * TP / (2 * TP + FP + FN) once,
// 0.0 when the denominator is 0 (no positive anywhere). That is one int / int
// true division, correctly rounded in Python and in C++ (args::true_divide).
//
// Source: https://github.com/keras-team/keras/issues/4592
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Reduce { MeanOfBatches, MeanOfDefinedBatches, SummedCounts };

struct Counts {
  std::int64_t tp = 0, fp = 0, fn = 0;
};

Result<double> f1(const Counts& c) {
  const std::int64_t denom = 2 * c.tp + c.fp + c.fn;  // counts are bounded by the list length
  if (denom == 0) return 0.0;
  return args::true_divide(2 * c.tp, denom);
}

Result<Value> batched_f1(args::IntListView preds, args::IntListView target, std::int64_t batch_size, Reduce reduce) {
  if (batch_size <= 0) return input_error("ValueError: range() arg 3 must not be zero");
  const std::size_t n = target.size();
  const auto b = static_cast<std::size_t>(batch_size);
  Counts all;
  double total = 0.0;
  std::int64_t scored = 0;
  std::int64_t updates = 0;
  for (std::size_t start = 0; start < n; start += b) {
    const std::size_t end = n - start < b ? n : start + b;
    Counts batch;
    for (std::size_t i = start; i < end && i < preds.size(); ++i) {
      const bool p = preds[i] == 1;
      const bool t = target[i] == 1;
      if (p && t) ++batch.tp;
      else if (p) ++batch.fp;
      else if (t) ++batch.fn;
    }
    ++updates;
    all.tp += batch.tp;
    all.fp += batch.fp;
    all.fn += batch.fn;
    if (reduce == Reduce::MeanOfDefinedBatches && 2 * batch.tp + batch.fp + batch.fn == 0) continue;
    FAILMAP_TRY_ASSIGN(auto score, f1(batch));
    total += score;
    ++scored;
  }
  if (reduce == Reduce::SummedCounts) {
    FAILMAP_TRY_ASSIGN(auto score, f1(all));
    return Value::list({Value::integer(updates), Value::floating(score)});
  }
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(scored)));
  return Value::list({Value::integer(updates), Value::floating(mean)});
}

Result<Value> broken(args::IntListView preds, args::IntListView target, std::int64_t batch_size) {
  return batched_f1(preds, target, batch_size, Reduce::MeanOfBatches);
}

Result<Value> unsuccessful(args::IntListView preds, args::IntListView target, std::int64_t batch_size) {
  return batched_f1(preds, target, batch_size, Reduce::MeanOfDefinedBatches);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView preds, args::IntListView target, std::int64_t batch_size) {
  return batched_f1(preds, target, batch_size, Reduce::SummedCounts);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_f1_batch_average() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "f1-batch-average",
      .title = "F1 averaged over batches",
      .source = "https://github.com/keras-team/keras/issues/4592",
      .evaluation_group = {"streaming-metric-state"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The F1 metric is the mean of per-batch F1 scores",
              .summary = "The F1 metric is the mean of per-batch F1 scores.",
              .root_cause = "The metric computes F1 on every batch and averages the batch scores, although F1 is a "
                            "ratio of counts over the whole set.",
              .failure = "The broken path depends on the batch size: a batch without positives scores 0 and pulls "
                         "the mean down, and batches of different F1 are weighted equally.",
              .unsuccessful_approach = "Skipping the batches whose F1 is 0 / 0 removes the empty batches but keeps "
                                       "a mean of batch ratios.",
              .contract = "Return [number of batches, F1]: the batches are target[i:i + batch_size] (and the same "
                          "slice of preds); F1 = 2 * TP / (2 * TP + FP + FN) with the counts summed over all "
                          "batches, 0.0 when that denominator is 0.",
              .why_it_matters = "A reported F1 that changes with the evaluation batch size, and drops on batches "
                                "with no positive, is not the model's F1; imbalanced data makes it worse.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def counts(preds, target):\n"
               "    tp = fp = fn = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if p == 1 and t == 1:\n"
               "            tp += 1\n"
               "        elif p == 1:\n"
               "            fp += 1\n"
               "        elif t == 1:\n"
               "            fn += 1\n"
               "    return tp, fp, fn\n"
               "def solve(preds, target, batch_size):\n"
               "    total = 0.0\n"
               "    batches = 0\n"
               "    for start in range(0, len(target), batch_size):\n"
               "        tp, fp, fn = counts(preds[start:start + batch_size], target[start:start + batch_size])\n"
               "        denom = 2 * tp + fp + fn\n"
               "        total += 2 * tp / denom if denom else 0.0\n"
               "        batches += 1\n"
               "    return [batches, total / batches]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def counts(preds, target):\n"
               "    tp = fp = fn = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if p == 1 and t == 1:\n"
               "            tp += 1\n"
               "        elif p == 1:\n"
               "            fp += 1\n"
               "        elif t == 1:\n"
               "            fn += 1\n"
               "    return tp, fp, fn\n"
               "def solve(preds, target, batch_size):\n"
               "    total = 0.0\n"
               "    batches = 0\n"
               "    scored = 0\n"
               "    for start in range(0, len(target), batch_size):\n"
               "        tp, fp, fn = counts(preds[start:start + batch_size], target[start:start + batch_size])\n"
               "        batches += 1\n"
               "        denom = 2 * tp + fp + fn\n"
               "        if denom == 0:\n"
               "            continue\n"
               "        total += 2 * tp / denom\n"
               "        scored += 1\n"
               "    return [batches, total / scored]\n"},
              FAILMAP_REPAIRED(repaired,
               "def counts(preds, target):\n"
               "    tp = fp = fn = 0\n"
               "    for p, t in zip(preds, target):\n"
               "        if p == 1 and t == 1:\n"
               "            tp += 1\n"
               "        elif p == 1:\n"
               "            fp += 1\n"
               "        elif t == 1:\n"
               "            fn += 1\n"
               "    return tp, fp, fn\n"
               "def solve(preds, target, batch_size):\n"
               "    tp_all = fp_all = fn_all = 0\n"
               "    batches = 0\n"
               "    for start in range(0, len(target), batch_size):\n"
               "        tp, fp, fn = counts(preds[start:start + batch_size], target[start:start + batch_size])\n"
               "        tp_all += tp\n"
               "        fp_all += fp\n"
               "        fn_all += fn\n"
               "        batches += 1\n"
               "    denom = 2 * tp_all + fp_all + fn_all\n"
               "    return [batches, 2 * tp_all / denom if denom else 0.0]\n"),
          }},
      .fixtures =
          {
              {"batches without positives", "[1,0]*N+[0,0]*N+[0,0],[1,0]*N+[0,0]*N+[0,0],2", "[2*N+1,1.0]"},
              {"a batch with only a false positive", "[0,1]+[0,1]*N,[0,0]+[1,1]*N,2", "[N+1,2*N/(3*N+1)]"},
              {"the same samples in one batch", "[0,1]+[0,1]*N,[0,0]+[1,1]*N,2*N+2", "[1,2*N/(3*N+1)]"},
              {"a short final batch with a miss", "[1]*(2*N)+[0],[1]*(2*N)+[1],2*N", "[2,4*N/(4*N+1)]"},
              {"no positive predicted", "[0,0]*N+[0,0]*N+[0,0],[1,0]*N+[0,0]*N+[0,0],2", "[2*N+1,0.0]"},
              {"batches with different F1", "[1,0]*N+[0,0]*N+[0,0],[1,0]*N+[1,0]*N+[0,0],2", "[2*N+1,2/3]"},
              {"equal batches and an empty one", "[1,0,0]*N+[0,0,0],[1,1,0]*N+[0,0,0],3", "[N+1,2/3]"},
          },
  };
  return k_mechanism;
}
