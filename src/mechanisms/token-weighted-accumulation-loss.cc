// Token-weighted accumulation loss
// ================================
//
// The failure. A causal language model trains with gradient accumulation:
// the optimizer step sees several micro-batches, each holding a different
// number of real tokens. The per-token loss of the step is the sum of every
// token's loss divided by the number of tokens in the step. The broken path
// lets each micro-batch average its own tokens and then averages those means
// across micro-batches, so a micro-batch of one token weighs as much as one of
// a thousand: [[1.0], [3.0, 3.0, 3.0]] gives 2.0 where the step loss is 2.5.
// This is the bug widely reported against trainers in 2024, where accumulated
// loss differed from the loss of the same tokens in one large batch.
//
// Why the unsuccessful fix fails. The fix divides each micro-batch's summed
// loss by the token count of the whole step, which is the right denominator,
// but it keeps the loop's old habit of averaging over micro-batches by
// multiplying the result back by their number (the trainer still scales by
// the accumulation steps). Every step is inflated by that factor: the same
// fixture gives 5.0. It agrees with the contract only when the step has a
// single micro-batch or the losses cancel to zero.
//
// Why the repair holds. It carries two pieces of state across the step, the
// running sum of token losses and the running token count, and divides once
// at the end. No micro-batch boundary appears in the formula, so
// splitting the same tokens differently cannot change the result beyond
// float rounding of the sum (failmap's fixtures use exactly representable
// values). Losses are summed with an explicit loop, not Python's sum(), whose
// float algorithm changed in Python 3.12.
//
// torchtune PR 1875 normalises by the total number of tokens in the step
// instead of averaging per-batch means.
// Source: https://github.com/meta-pytorch/torchtune/pull/1875
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Batches = std::vector<std::vector<double>>;

Result<Value> broken(const Batches& micro_batches) {
  double total = 0.0;
  for (const std::vector<double>& batch : micro_batches) {
    double batch_total = 0.0;
    for (double loss : batch) batch_total += loss;
    FAILMAP_TRY_ASSIGN(auto mean, args::divide(batch_total, static_cast<double>(batch.size())));
    total += mean;
  }
  FAILMAP_TRY_ASSIGN(auto r, args::divide(total, static_cast<double>(micro_batches.size())));
  return Value::floating(r);
}

Result<Value> unsuccessful(const Batches& micro_batches) {
  double total = 0.0;
  std::int64_t count = 0;
  for (const std::vector<double>& batch : micro_batches) {
    for (double loss : batch) total += loss;
    FAILMAP_TRY_ASSIGN(count, checked_add(count, args::length(batch)));
  }
  // len(micro_batches) * total / count, left to right.
  FAILMAP_TRY_ASSIGN(auto r, args::divide(static_cast<double>(micro_batches.size()) * total, static_cast<double>(count)));
  return Value::floating(r);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Batches& micro_batches) {
  double total = 0.0;
  std::int64_t count = 0;
  for (const std::vector<double>& batch : micro_batches) {
    for (double loss : batch) total += loss;
    FAILMAP_TRY_ASSIGN(count, checked_add(count, args::length(batch)));
  }
  FAILMAP_TRY_ASSIGN(auto r, args::divide(total, static_cast<double>(count)));
  return Value::floating(r);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_token_weighted_accumulation_loss() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "token-weighted-accumulation-loss",
      .title = "Token-weighted accumulation loss",
      .source = "https://github.com/meta-pytorch/torchtune/pull/1875",
      .evaluation_group = {"loss-normalization"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Accumulated loss averages micro-batch means instead of tokens",
              .summary = "Accumulated loss averages micro-batch means instead of tokens.",
              .root_cause = "Each micro-batch is normalised by its own token count before accumulation, so every "
                            "micro-batch gets equal weight regardless of how many tokens it holds.",
              .failure = "The broken path returns the mean of per-micro-batch means; a short micro-batch pulls the "
                         "step loss as hard as a long one.",
              .unsuccessful_approach = "Dividing by the step's total token count but still multiplying by the "
                                       "number of micro-batches inflates every multi-micro-batch step.",
              .contract = "Return the sum of all token losses across the step's micro-batches divided by the total "
                          "token count of the step.",
              .why_it_matters = "Loss curves and gradients under accumulation must match one large batch of the same "
                                "tokens, or tuning results do not transfer.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(micro_batches):\n"
               "    total = 0.0\n"
               "    for batch in micro_batches:\n"
               "        batch_total = 0.0\n"
               "        for loss in batch:\n"
               "            batch_total += loss\n"
               "        total += batch_total / len(batch)\n"
               "    return total / len(micro_batches)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(micro_batches):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for batch in micro_batches:\n"
               "        for loss in batch:\n"
               "            total += loss\n"
               "        count += len(batch)\n"
               "    return len(micro_batches) * total / count\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(micro_batches):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for batch in micro_batches:\n"
               "        for loss in batch:\n"
               "            total += loss\n"
               "        count += len(batch)\n"
               "    return total / count\n"),
          }},
      .fixtures =
          {
              {"uneven micro-batches", "[[1.0*N],[3.0*N,3.0*N,3.0*N]]", "2.5*N"},
              {"single micro-batch", "[[2.0]*(N-1)+[5.0]]", "(2.0*N+3.0)/N"},
              {"equal token counts", "[[2.0]*N,[4.0]*N]", "3.0"},
              {"long and short", "[[0.0,0.0,0.0],[4.0*N]]", "1.0*N"},
              {"signed losses cancel", "[[1.0*N],[-1.0*N,0.0]]", "0.0"},
              {"one token each", "[[1.0*N],[3.0*N]]", "2.0*N"},
              {"three micro-batches", "[[1.0],[2.0,2.0],[6.0]*N]", "(5.0+6.0*N)/(N+3)"},
          },
  };
  return k_mechanism;
}
