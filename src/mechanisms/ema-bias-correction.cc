// EMA bias correction
// ===================
//
// The failure. An exponential moving average m <- beta * m + (1 - beta) * x
// that starts at m = 0 is biased toward zero: after t updates its weights sum
// to 1 - beta^t, not 1. Adam's moment estimates, EMA model weights and
// smoothed loss curves all divide by 1 - beta^t to remove that bias. The
// broken path reports the raw average: a constant signal of 10.0 with
// beta = 0.9 reads 1.0, 1.9, 2.71, ... instead of 10.0, 10.0, 10.0, and the
// early part of every curve or every early Adam step is distorted.
//
// Why the unsuccessful fix fails. The correction is added, but its step
// counter is advanced before the first division, so update t is divided by
// 1 - beta^(t+1). The early estimates are still biased low (10.0 reads 5.26
// after the first update with beta = 0.9), which is exactly where the
// correction matters. Late in a run beta^t is below float resolution and the
// off-by-one stops changing the result, so long-run dashboards look right.
//
// Why the repair holds. The correction uses the number of updates actually
// folded into m: power starts at 1.0 and is multiplied by beta once per
// update, just before the division, so after t updates it is beta^t computed
// by repeated multiplication (no pow(), whose rounding varies by libm). The
// corrected estimate of a constant signal is that constant on the first
// update and every one after. The C++ performs the same multiplications and
// additions in the same order.
//
// nanochat PR 818 fixes exactly the unsuccessful variant: the step counter was
// incremented before the debias, dividing by 1 - beta^(t+1).
// Source: https://github.com/karpathy/nanochat/pull/818
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Correction { None, LaggingByOne, Exact };

Result<Value> ema(double beta, const std::vector<double>& xs, Correction correction) {
  double m = 0.0;
  double power = correction == Correction::LaggingByOne ? beta : 1.0;
  std::vector<double> out;
  for (double x : xs) {
    m = beta * m + (1.0 - beta) * x;
    if (correction == Correction::None) {
      out.push_back(m);
      continue;
    }
    power = power * beta;
    FAILMAP_TRY_ASSIGN(auto corrected, args::divide(m, 1.0 - power));
    out.push_back(corrected);
  }
  return args::float_list_value(out);
}

Result<Value> broken(double beta, const std::vector<double>& xs) { return ema(beta, xs, Correction::None); }
Result<Value> unsuccessful(double beta, const std::vector<double>& xs) {
  return ema(beta, xs, Correction::LaggingByOne);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double beta, const std::vector<double>& xs) { return ema(beta, xs, Correction::Exact); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_ema_bias_correction() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "ema-bias-correction",
      .title = "EMA bias correction",
      .source = "https://github.com/karpathy/nanochat/pull/818",
      .evaluation_group = {"ema"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A zero-initialised moving average is reported without bias correction",
              .summary = "A zero-initialised moving average is reported without bias correction.",
              .root_cause = "The average starts at zero and its weights sum to 1 - beta^t after t updates, but the "
                            "raw value is used as if they summed to one.",
              .failure = "The broken path returns the raw average, biased toward zero for the first updates by a "
                         "factor of 1 - beta^t.",
              .unsuccessful_approach = "Dividing by 1 - beta^(t+1) advances the step counter too early and leaves "
                                       "the early estimates biased low.",
              .contract = "After each update t (1-based), return the zero-initialised average divided by 1 - beta^t, "
                          "with beta^t computed by repeated multiplication.",
              .why_it_matters = "Adam moments, EMA weights and smoothed metrics are read most critically at the "
                                "start of a run, exactly where an uncorrected average is wrong.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(beta, xs):\n"
               "    m = 0.0\n"
               "    out = []\n"
               "    for x in xs:\n"
               "        m = beta * m + (1.0 - beta) * x\n"
               "        out.append(m)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(beta, xs):\n"
               "    m = 0.0\n"
               "    power = beta\n"
               "    out = []\n"
               "    for x in xs:\n"
               "        m = beta * m + (1.0 - beta) * x\n"
               "        power = power * beta\n"
               "        out.append(m / (1.0 - power))\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(beta, xs):\n"
               "    m = 0.0\n"
               "    power = 1.0\n"
               "    out = []\n"
               "    for x in xs:\n"
               "        m = beta * m + (1.0 - beta) * x\n"
               "        power = power * beta\n"
               "        out.append(m / (1.0 - power))\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"constant signal", "0.75,[8.0*N]*3", "[8.0*N]*3"},
              {"half decay", "0.5,[4.0*N]*4", "[4.0*N]*4"},
              {"no memory", "0.0,[1.0*N,3.0,5.0]", "[1.0*N,3.0,5.0]"},
              {"no updates", "0.5,[]", "[]"},
              {"first update", "0.5,[6.0*N]", "[6.0*N]"},
              {"late first signal", "0.5,[0.0]*51+[2.0]", "[0.0]*51+[1.0000000000000002]"},
              {"step change", "0.5,[2.0*N,6.0*N]", "[2.0*N,3.5*N/0.75]"},
      },
  };
  return k_mechanism;
}
