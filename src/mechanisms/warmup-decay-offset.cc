// Polynomial decay started at step 0 instead of after warmup
// ==========================================================
//
// The failure. A warmup-then-decay schedule raises the rate linearly for
// `warmup` steps and then decays it polynomially over the remaining
// total - warmup steps, so the decay must be evaluated at step - warmup.
// transformers' TensorFlow WarmUp schedule called the decay at the global
// step: at the end of warmup the rate dropped at once to the value the decay
// had already reached after `warmup` steps, and the decay ended warmup steps
// early (huggingface/transformers pull request 4940, "Delay decay schedule
// until the end of warmup"). The reproducer returns what the schedule
// evaluates, [phase, position, length]: with warmup 2 and total 7, step 2 is
// decay position 2 of 5 instead of 0 of 5.
//
// Why the unsuccessful fix fails. Subtracting warmup from the step in a
// hand-written decay, without the clamp TF's PolynomialDecay applies at the
// end (position = min(step - warmup, decay length)), is right for every step
// of the decay and wrong after it: the position runs past the length, and
// (1 - position / length) ** power turns negative (odd power) or climbs back
// up (even power) in the steps a scheduler takes past total, e.g. the extra
// steps of a rounded-up epoch count. (Constructed; the pull request passes
// step - warmup to the clamping TF schedule.)
//
// Why the repair holds. Warmup: phase 0, position = step, length = warmup.
// Decay: phase 1, position = min(step - warmup, total - warmup), length =
// total - warmup. All three are integers, so every correct fix returns the
// same values whatever formula it then uses for the multiplier.
//
// Source: https://github.com/huggingface/transformers/pull/4940
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Decay { GlobalStep, Unclamped, AfterWarmup };

Result<Value> evaluated(std::int64_t warmup, std::int64_t total, std::int64_t step, Decay decay) {
  if (step < warmup) return Value::list({Value::integer(0), Value::integer(step), Value::integer(warmup)});
  FAILMAP_TRY_ASSIGN(auto length, checked_sub(total, warmup));
  FAILMAP_TRY_ASSIGN(auto since, checked_sub(step, warmup));
  std::int64_t position = 0;
  switch (decay) {
    case Decay::GlobalStep: position = std::min(step, length); break;
    case Decay::Unclamped: position = since; break;
    case Decay::AfterWarmup: position = std::min(since, length); break;
  }
  return Value::list({Value::integer(1), Value::integer(position), Value::integer(length)});
}

Result<Value> broken(std::int64_t warmup, std::int64_t total, std::int64_t step) {
  return evaluated(warmup, total, step, Decay::GlobalStep);
}

Result<Value> unsuccessful(std::int64_t warmup, std::int64_t total, std::int64_t step) {
  return evaluated(warmup, total, step, Decay::Unclamped);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t warmup, std::int64_t total, std::int64_t step) {
  return evaluated(warmup, total, step, Decay::AfterWarmup);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warmup_decay_offset() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warmup-decay-offset",
      .title = "Polynomial decay started at step 0 instead of after warmup",
      .source = "https://github.com/huggingface/transformers/pull/4940",
      .evaluation_group = {"lr-schedule"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "The learning rate drops at the end of warmup because the decay ran from step 0",
              .summary = "The learning rate drops at the end of warmup because the decay ran from step 0.",
              .root_cause = "The decay schedule is evaluated at the global step instead of at step - warmup, so it "
                            "has already advanced by warmup steps when warmup ends.",
              .failure = "The broken path starts the decay at position warmup instead of 0, dropping the rate at "
                         "the end of warmup, and reaches the end of the decay warmup steps early.",
              .unsuccessful_approach = "Subtracting warmup from the step without clamping at the decay length is "
                                       "right inside the decay but runs past its end after total.",
              .contract = "Return [phase, position, length] that the schedule evaluates at step: while step < "
                          "warmup [0, step, warmup]; after it [1, min(step - warmup, total - warmup), total - "
                          "warmup] (the multiplier is position / length in warmup, (1 - position / length) ** "
                          "power in the decay).",
              .why_it_matters = "An unplanned drop at the end of warmup and a shortened decay change the whole "
                                "run's effective learning rate; results then depend on the warmup length in a way "
                                "nobody intended.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(warmup, total, step):\n"
               "    if step < warmup:\n"
               "        return [0, step, warmup]\n"
               "    decay_steps = total - warmup\n"
               "    return [1, min(step, decay_steps), decay_steps]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(warmup, total, step):\n"
               "    if step < warmup:\n"
               "        return [0, step, warmup]\n"
               "    decay_steps = total - warmup\n"
               "    return [1, step - warmup, decay_steps]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(warmup, total, step):\n"
               "    if step < warmup:\n"
               "        return [0, step, warmup]\n"
               "    decay_steps = total - warmup\n"
               "    return [1, min(step - warmup, decay_steps), decay_steps]\n"),
          }},
      .fixtures =
          {
              {"the first step after warmup", "2,N+6,2", "[1,0,N+4]"},
              {"past the end", "2,N+6,N+8", "[1,N+4,N+4]"},
              {"inside the decay", "2,N+6,4", "[1,2,N+4]"},
              {"during warmup", "N+1,2*N+6,N", "[0,N,N+1]"},
              {"inside the decay, a longer warmup", "3,N+6,4", "[1,1,N+3]"},
              {"inside a longer decay", "2,N+7,4", "[1,2,N+5]"},
              {"well past the end", "2,N+6,2*N+9", "[1,N+4,N+4]"},
          },
  };
  return k_mechanism;
}
