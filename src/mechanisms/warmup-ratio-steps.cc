// Warmup ratio steps
// ==================
//
// The failure. A warmup given as a ratio of the run (warmup_ratio = 0.03)
// has to become a whole number of warmup steps. Hugging Face's
// TrainingArguments rounds up, math.ceil(num_training_steps * ratio), so a
// positive ratio always yields at least one warmup step and a fractional
// step is never lost. The broken path truncates, int(ratio * num_steps), as
// deepmd-kit PR 5134 computes it (the PR warns "if ratio yields zero steps
// while > 0"): a short run, or a short stage, silently trains with no warmup
// at all, and every run's warmup is one step short whenever the product is
// not a whole number.
//
// Why the unsuccessful fix fails. Answering that warning with "at least one
// warmup step", max(1, int(ratio * steps)), is constructed here as the
// unsuccessful fix. It repairs the zero-step case the warning is about, but
// still truncates every other fractional product (N + 0.75 steps gives N),
// and it turns an explicit ratio of 0.0, a request for no warmup, into one
// warmup step.
//
// Why the repair holds. Round the float product up, as
// math.ceil(steps * ratio) does: zero only for a zero product, never short by
// a fraction. The product is Python's float multiplication of the int step
// count, which C++ performs identically; the ceiling is exact, and a result
// beyond int64 is an Error rather than a wrap.
//
// Source: https://github.com/deepmodeling/deepmd-kit/pull/5134
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Rounding { Truncate, TruncateAtLeastOne, Ceiling };

Result<Value> warmup_steps(std::int64_t num_training_steps, double warmup_ratio, Rounding rounding) {
  const double product = static_cast<double>(num_training_steps) * warmup_ratio;
  const double rounded = rounding == Rounding::Ceiling ? std::ceil(product) : std::trunc(product);
  // Python ints are unbounded; failmap refuses what int64 cannot hold.
  if (!(rounded >= -9223372036854775808.0 && rounded < 9223372036854775808.0))
    return input_error("warmup steps " + std::to_string(product) + " do not fit a 64-bit int");
  std::int64_t out = static_cast<std::int64_t>(rounded);
  if (rounding == Rounding::TruncateAtLeastOne && out < 1) out = 1;
  return Value::integer(out);
}

Result<Value> broken(std::int64_t num_training_steps, double warmup_ratio) {
  return warmup_steps(num_training_steps, warmup_ratio, Rounding::Truncate);
}
Result<Value> unsuccessful(std::int64_t num_training_steps, double warmup_ratio) {
  return warmup_steps(num_training_steps, warmup_ratio, Rounding::TruncateAtLeastOne);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t num_training_steps, double warmup_ratio) {
  return warmup_steps(num_training_steps, warmup_ratio, Rounding::Ceiling);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warmup_ratio_steps() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warmup-ratio-steps",
      .title = "Warmup ratio steps",
      .source = "https://github.com/deepmodeling/deepmd-kit/pull/5134",
      .evaluation_group = {"step-accounting"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A warmup ratio is truncated to whole warmup steps",
              .summary = "A warmup ratio is truncated to whole warmup steps.",
              .root_cause = "The number of warmup steps is the product of a ratio and the step count, rounded down "
                            "to an int, so fractions of a step are dropped.",
              .failure = "The broken path returns int(steps * ratio): short runs get no warmup at all and others "
                         "one step too few.",
              .unsuccessful_approach = "Forcing at least one warmup step fixes only the zero case, still "
                                       "truncates other fractions, and gives a ratio of 0.0 a warmup step.",
              .contract = "Return math.ceil(num_training_steps * warmup_ratio) as an int, the float product "
                          "rounded up.",
              .why_it_matters = "Warmup protects the first updates of a run; silently losing it on short runs or "
                                "fine-tuning stages makes them diverge where longer runs do not.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(num_training_steps, warmup_ratio):\n"
               "    return int(num_training_steps * warmup_ratio)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(num_training_steps, warmup_ratio):\n"
               "    return max(1, int(num_training_steps * warmup_ratio))\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(num_training_steps, warmup_ratio):\n"
               "    import math\n"
               "    return math.ceil(num_training_steps * warmup_ratio)\n"),
          }},
      .fixtures =
          {
              {"short run", "4*N-1,0.25", "N"},
              {"no warmup requested", "10*N,0.0", "0"},
              {"an eighth of a step over", "8*N+1,0.125", "N+1"},
              {"whole number of steps", "4*N,0.25", "N"},
              {"three quarters of a step over", "4*N+3,0.25", "N+1"},
              {"tiny ratio", "10,0.0625", "1"},
              {"one step", "1,0.25", "1"},
      },
  };
  return k_mechanism;
}
