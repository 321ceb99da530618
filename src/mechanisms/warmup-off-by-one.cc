// Warmup off by one
// =================
//
// The failure. Linear warmup raises the learning rate from near zero to the
// base rate over W optimizer updates. The contract, for 0-based update s, is
// lr = base * min(1, (s + 1) / W): the first update already moves at base / W
// and update W - 1 is the first at the full rate. The broken schedule uses
// s / W, so the very first update runs at learning rate 0. That update is
// wasted, and with W = 1 ("no warmup") the schedule silently zeroes the first
// step of every run: base 1.0, W = 4 gives [0.0, 0.25, 0.5, 0.75, 1.0, ...]
// where the contract says [0.25, 0.5, 0.75, 1.0, 1.0, ...].
//
// Why the unsuccessful fix fails. The common patch is to call
// scheduler.step() before optimizer.step(), so the first update sees the
// schedule's second value. That over-corrects by one: the rate is
// base * min(1, (s + 2) / W), the ramp reaches the base rate one update early
// and the first update runs at 2 / W of base. It agrees with the contract only
// once the ramp is over, or when W = 1 and there is no ramp at all.
//
// Why the repair holds. It evaluates the contract's formula at the update's
// own index, which is the counter the optimizer is about to apply. (s + 1) / W
// is Python int / int true division (correctly rounded; C++ uses
// args::true_divide), and min(1, x) returns the int 1 unless x < 1, which
// only changes base * 1 into base * 1.0, the same float.
//
// google-research/bert issue 1293 reports the zero learning rate of the first warmup step.
// Source: https://github.com/google-research/bert/issues/1293
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// [base * min(1, (s + shift) / warmup) for s in range(steps)]
Result<Value> schedule(double base, std::int64_t warmup, std::int64_t steps, std::int64_t shift) {
  std::vector<double> lrs;
  for (std::int64_t s = 0; s < steps; ++s) {
    FAILMAP_TRY_ASSIGN(auto numerator, checked_add(s, shift));
    FAILMAP_TRY_ASSIGN(auto ratio, args::true_divide(numerator, warmup));
    const double factor = ratio < 1.0 ? ratio : 1.0;  // min(1, ratio)
    lrs.push_back(base * factor);
  }
  return args::float_list_value(lrs);
}

Result<Value> broken(double base, std::int64_t warmup, std::int64_t steps) { return schedule(base, warmup, steps, 0); }
Result<Value> unsuccessful(double base, std::int64_t warmup, std::int64_t steps) {
  return schedule(base, warmup, steps, 2);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double base, std::int64_t warmup, std::int64_t steps) {
  return schedule(base, warmup, steps, 1);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warmup_off_by_one() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warmup-off-by-one",
      .title = "Warmup off by one",
      .source = "https://github.com/google-research/bert/issues/1293",
      .evaluation_group = {"lr-schedule"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "The first warmup update runs at learning rate zero",
              .summary = "The first warmup update runs at learning rate zero.",
              .root_cause = "The warmup ramp is evaluated at the number of updates already taken rather than at the "
                            "update being applied, so it lags the optimizer by one.",
              .failure = "The broken schedule returns base * min(1, s / W); update 0 has learning rate 0 and the "
                         "whole ramp is shifted one update late.",
              .unsuccessful_approach = "Stepping the scheduler before the optimizer shifts the ramp one update "
                                       "early instead, reaching the base rate before the warmup ends.",
              .contract = "Return the learning rate of each 0-based update s as base * min(1, (s + 1) / W).",
              .why_it_matters = "Schedules are compared and reproduced across frameworks; an off-by-one in the "
                                "ramp wastes the first update and shifts every later rate.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(base, warmup, steps):\n"
               "    return [base * min(1, s / warmup) for s in range(steps)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(base, warmup, steps):\n"
               "    return [base * min(1, (s + 2) / warmup) for s in range(steps)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(base, warmup, steps):\n"
               "    return [base * min(1, (s + 1) / warmup) for s in range(steps)]\n"),
          }},
      .fixtures =
          {
              {"ramp then plateau", "1.0*N,4,6", "[0.25*N,0.5*N,0.75*N,1.0*N,1.0*N,1.0*N]"},
              {"no warmup", "2.0*N,1,3", "[2.0*N,2.0*N,2.0*N]"},
              {"first update", "1.0,2*N,1", "[1.0/(2*N)]"},
              {"long warmup", "4.0,4*N,2", "[1.0/N,2.0/N]"},
              {"zero steps", "1.0,N,0", "[]"},
              {"two-update warmup", "2.0*N,2,3", "[1.0*N,2.0*N,2.0*N]"},
              {"unit warmup", "0.5,1,N", "[0.5]*N"},
          },
  };
  return k_mechanism;
}
