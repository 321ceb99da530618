// Steps per epoch with accumulation
// =================================
//
// The failure. A trainer that accumulates gradients over K batches and
// flushes the final partial group (see partial-accumulation-flush) takes
// ceil(E / K) optimizer steps per epoch of E batches. Schedulers, progress
// bars, checkpoint intervals and max_steps budgets are all sized from that
// number. The broken path computes it as E // K, the number of full groups
// only: with E = 5 and K = 2 it plans 2 steps while the loop takes 3, so a
// linear schedule reaches its end early and the last step of every epoch runs
// at a learning rate the schedule never meant to produce, or past max_steps.
//
// Why the unsuccessful fix fails. Writing the ceiling as (E + K) // K adds one
// unconditionally. It is right whenever K does not divide E, which is the
// case the bug report came from, and wrong, by one extra phantom step per
// epoch, whenever it does: E = 4, K = 2 gives 3 instead of 2. An empty epoch
// gets one step too.
//
// Why the repair holds. (E + K - 1) // K is the integer ceiling of E / K for
// E >= 0 and K >= 1: it adds one exactly when a remainder exists, matching the
// loop that flushes a partial group only when there is one. Integer arithmetic
// only; the C++ uses checked operations, so overflow is an error, not a wrap.
//
// FARM issue 46 reports one step per epoch too few from rounding down.
// Source: https://github.com/deepset-ai/FARM/issues/46
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

Result<Value> as_value(const Result<std::int64_t>& r) {
  if (!r) return r.error();
  return Value::integer(*r);
}

Result<Value> broken(std::int64_t batches, std::int64_t k) { return as_value(checked_floordiv(batches, k)); }

Result<Value> unsuccessful(std::int64_t batches, std::int64_t k) {
  FAILMAP_TRY_ASSIGN(auto sum, checked_add(batches, k));
  return as_value(checked_floordiv(sum, k));
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t batches, std::int64_t k) {
  FAILMAP_TRY_ASSIGN(auto sum, checked_add(batches, k));
  FAILMAP_TRY_ASSIGN(auto numerator, checked_sub(sum, 1));
  return as_value(checked_floordiv(numerator, k));
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_steps_per_epoch_with_accumulation() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "steps-per-epoch-with-accumulation",
      .title = "Steps per epoch with accumulation",
      .source = "https://github.com/deepset-ai/FARM/issues/46",
      .evaluation_group = {"step-accounting"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Optimizer steps per epoch ignore the flushed partial group",
              .summary = "Optimizer steps per epoch ignore the flushed partial group.",
              .root_cause = "Steps per epoch are computed by floor division of batches by the accumulation length, "
                            "but the training loop also steps on the final partial group.",
              .failure = "The broken path returns E // K, one step short whenever K does not divide E, so "
                         "schedules and step budgets are sized for fewer steps than the loop takes.",
              .unsuccessful_approach = "Computing (E + K) // K adds a step unconditionally and over-counts by one "
                                       "whenever K divides E.",
              .contract = "Return the optimizer steps of one epoch of E batches with K-batch accumulation and a "
                          "flushed final group: ceil(E / K), computed as (E + K - 1) // K.",
              .why_it_matters = "Learning-rate schedules, checkpoint cadence and step budgets are all derived from "
                                "this count; an off-by-one shifts every one of them.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(batches, k):\n"
               "    return batches // k\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(batches, k):\n"
               "    return (batches + k) // k\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(batches, k):\n"
               "    return (batches + k - 1) // k\n"),
          }},
      .fixtures =
          {
              {"partial final group", "2*N+1,2", "N+1"},
              {"exact multiple", "2*N,2", "N"},
              {"no accumulation", "N,1", "N"},
              {"fewer batches than k", "N,N+1", "1"},
              {"empty epoch", "0,N", "0"},
              {"one short of a multiple", "3*N-1,3", "N"},
              {"long epoch", "4*N+3,4", "N+1"},
          },
  };
  return k_mechanism;
}
