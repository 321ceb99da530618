// Gradient accumulation weighting
// ===============================
//
// The failure. A training loop accumulates gradients over micro-batches until
// a target number of samples is reached. The broken path adds a micro-batch's
// contribution only when its size equals the target exactly, so the short
// final batch of an epoch, and any oversized batch, silently contribute
// nothing: the accumulated total under-counts the samples actually seen.
//
// Why the unsuccessful fix fails. Summing every batch and then rounding the
// total down to a multiple of the target looks like "only count whole
// accumulation steps", but it drops the final remainder, which is exactly the
// short batch the contract says must count: `[1, 1, 1]` at target 2 gives 2.
//
// Why the repair holds. The contract is an order-independent aggregate: the
// sum of every observed batch size. Summation has no special cases for
// partial, exact or oversized batches, so none can be dropped; the only
// failure mode left is integer overflow, which failmap reports as an error.
//
// Published as case FA-98921 (tests/data/seeds/000_b91ddc69b4d265ed.txt).
// transformers issue 2995 reports an epoch shorter than the accumulation window
// that never reaches an optimizer step: the short final window is discarded.
// Source: https://github.com/huggingface/transformers/issues/2995
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

Result<Value> broken(args::IntListView batch_sizes, std::int64_t target) {
  std::int64_t total = 0;
  for (std::int64_t size : batch_sizes) {
    if (size != target) continue;
    FAILMAP_TRY_ASSIGN(total, checked_add(total, size));
  }
  return Value::integer(total);
}

Result<Value> unsuccessful(args::IntListView batch_sizes, std::int64_t target) {
  FAILMAP_TRY_ASSIGN(auto total, args::checked_sum(batch_sizes));
  std::int64_t dropped = 0;
  if (target != 0) {
    FAILMAP_TRY_ASSIGN(dropped, checked_mod(total, target));
  }
  FAILMAP_TRY_ASSIGN(auto r, checked_sub(total, dropped));
  return Value::integer(r);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView batch_sizes, std::int64_t /*target*/) {
  FAILMAP_TRY_ASSIGN(auto total, args::checked_sum(batch_sizes));
  return Value::integer(total);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_gradient_accumulation_weighting() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "gradient-accumulation-weighting",
      .title = "Gradient accumulation weighting",
      .source = "https://github.com/huggingface/transformers/issues/2995",
      .evaluation_group = {"gradient-accumulation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "The final short batch is discarded from accumulation",
              .summary = "The final short batch is discarded from accumulation.",
              .root_cause = "The broken path sums only batches exactly equal to the target and drops partial or "
                            "oversized contributions.",
              .failure = "The broken path sums only batches exactly equal to the target and drops partial or "
                         "oversized contributions.",
              .unsuccessful_approach = "Rounding the total down to a multiple of target discards the final remainder.",
              .contract = "Sum every observed batch size in order-independent aggregate form, including a final "
                          "remainder smaller than target.",
              .why_it_matters = "A deterministic toy model isolates one local accumulation contract.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an optimizer. "
                       "This reproducer isolates one failure mechanism. Results cover the supplied fixtures. Variants "
                       "within a family share a test contract and should remain grouped when constructing evaluation "
                       "splits. Related mechanisms with a shared evaluation_group must also remain together; these "
                       "controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(batch_sizes, target):\n"
               "    return sum(size for size in batch_sizes if size == target)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(batch_sizes, target):\n"
               "    return sum(batch_sizes) - (sum(batch_sizes) % target if target else 0)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(batch_sizes, target):\n"
               "    return sum(batch_sizes)\n"),
          }},
      .fixtures =
          {
              {"short final batch", "[N,N,1],2*N", "2*N+1"},
              {"all full batches", "[N,N],N", "2*N"},
              {"single short", "[1],N+1", "1"},
              {"empty", "[],N", "0"},
              {"oversized batch", "[3*N],N", "3*N"},
              {"mixed remainder", "[2*N,N-1],N+1", "3*N-1"},
              {"unit batch", "[1,1,1],2", "3"},
          },
  };
  return k_mechanism;
}
