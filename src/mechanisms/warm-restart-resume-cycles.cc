// Warm-restart position after resuming several cycles in
// ======================================================
//
// The failure. A CosineAnnealingWarmRestarts schedule resumed at epoch e
// must find its place: the cycle e falls in (cycles of T_0, T_0 * T_mult,
// T_0 * T_mult^2, ... epochs) and the position T_cur inside it. PyTorch's
// step() moved T_cur back by one cycle length and grew T_i once, with an
// `if`, so a resume that lands two or more cycles after the start keeps a
// position beyond the cycle's end and the annealing formula runs off its
// period. pytorch/pytorch pull request 110497 ("Fix resume issue in
// CosineAnnealingWarmRestarts", issue 88791) and the companion pull request
// 110493 replace the single update by one that accounts for every cycle
// passed. T_0 = 1, T_mult = 2, resumed at epoch 5: [T_cur, T_i] = [2, 4],
// where the single update gives [4, 2].
//
// Why the unsuccessful fix fails. The closed form PyTorch uses when an epoch
// is passed explicitly, n = int(math.log(e / T_0 * (T_mult - 1) + 1, T_mult))
// cycles completed, is right in exact arithmetic and for most epochs, but
// at the first epoch of a cycle the logarithm of an exact power of T_mult can
// round just below the integer: math.log(243, 3) is 4.999999999999999 and
// math.log(1000, 10) is 2.9999999999999996, so int() puts the epoch in the
// previous cycle. Its T_cur is also a float.
//
// Why the repair holds. It walks the cycles with integers: while T_cur is
// at least T_i, subtract T_i and multiply T_i by T_mult. No rounding can
// misplace a cycle boundary; the C++ loop is the same integer recurrence.
// The unsuccessful form's math.log(x, b) is log(x) / log(b) in CPython, and
// the C++ computes it the same way.
//
// Source: https://github.com/pytorch/pytorch/pull/110497
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

Result<Value> positions(std::int64_t t0, std::int64_t t_mult, std::int64_t epoch, bool loop) {
  std::int64_t t_cur = epoch;
  std::int64_t t_i = t0;
  int guard = 0;
  while (t_cur >= t_i) {
    if (t_i <= 0) return input_error("the cycle length must be positive in this reproducer");
    t_cur -= t_i;
    FAILMAP_TRY_ASSIGN(t_i, checked_mul(t_i, t_mult));
    if (!loop || ++guard > 10000000) break;
  }
  return Value::list({Value::integer(t_cur), Value::integer(t_i)});
}

Result<Value> broken(std::int64_t t0, std::int64_t t_mult, std::int64_t epoch) {
  return positions(t0, t_mult, epoch, false);
}

Result<Value> unsuccessful(std::int64_t t0, std::int64_t t_mult, std::int64_t epoch) {
  if (epoch < t0) return Value::list({Value::integer(epoch), Value::integer(t0)});
  if (t_mult == 1) {
    FAILMAP_TRY_ASSIGN(auto r, checked_mod(epoch, t0));
    return Value::list({Value::integer(r), Value::integer(t0)});
  }
  FAILMAP_TRY_ASSIGN(auto ratio, args::true_divide(epoch, t0));
  const double x = ratio * static_cast<double>(t_mult - 1) + 1;
  if (!(x > 0) || t_mult <= 0) return input_error("ValueError: math domain error");
  const double lb = std::log(static_cast<double>(t_mult));
  if (lb == 0.0) return input_error("ZeroDivisionError: float division by zero");
  const double n_real = std::log(x) / lb;
  if (!std::isfinite(n_real) || n_real > 62 || n_real < 0) return input_error("n out of range for this reproducer");
  const auto n = static_cast<std::int64_t>(n_real);
  std::int64_t power = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    FAILMAP_TRY_ASSIGN(power, checked_mul(power, t_mult));
  }
  FAILMAP_TRY_ASSIGN(auto num, checked_mul(t0, power - 1));
  FAILMAP_TRY_ASSIGN(auto done, args::true_divide(num, t_mult - 1));
  FAILMAP_TRY_ASSIGN(auto t_i, checked_mul(t0, power));
  return Value::list({Value::floating(static_cast<double>(epoch) - done), Value::integer(t_i)});
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t t0, std::int64_t t_mult, std::int64_t epoch) {
  return positions(t0, t_mult, epoch, true);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warm_restart_resume_cycles() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warm-restart-resume-cycles",
      .title = "Warm-restart position after resuming several cycles in",
      .source = "https://github.com/pytorch/pytorch/pull/110497",
      .evaluation_group = {"cyclic-schedule"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "A resumed warm-restart schedule steps back only one cycle",
              .summary = "A resumed warm-restart schedule steps back only one cycle.",
              .root_cause = "The position inside the cycle is reduced by one cycle length with an if instead of a "
                            "loop, so an epoch two or more cycles in keeps a position past the cycle's end.",
              .failure = "The broken path resumes with T_cur larger than T_i and a cycle length that grew only "
                         "once, so the cosine runs outside its period.",
              .unsuccessful_approach = "The closed form int(log(e / T_0 * (T_mult - 1) + 1, T_mult)) finds the "
                                       "cycle in exact arithmetic but rounds down at some cycle starts.",
              .contract = "Return [T_cur, T_i] at epoch: cycles last t0, t0 * t_mult, t0 * t_mult**2, ... epochs "
                          "from epoch 0; T_i is the length of the cycle that holds epoch and T_cur the epochs since "
                          "that cycle began (integers).",
              .why_it_matters = "Resuming a long run is routine; a scheduler that resumes at the wrong point of its "
                                "cycle changes the rest of the training run silently.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(t0, t_mult, epoch):\n"
               "    t_cur = epoch\n"
               "    t_i = t0\n"
               "    if t_cur >= t_i:\n"
               "        t_cur -= t_i\n"
               "        t_i *= t_mult\n"
               "    return [t_cur, t_i]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "import math\n"
               "def solve(t0, t_mult, epoch):\n"
               "    if epoch < t0:\n"
               "        return [epoch, t0]\n"
               "    if t_mult == 1:\n"
               "        return [epoch % t0, t0]\n"
               "    n = int(math.log(epoch / t0 * (t_mult - 1) + 1, t_mult))\n"
               "    t_cur = epoch - t0 * (t_mult ** n - 1) / (t_mult - 1)\n"
               "    return [t_cur, t0 * t_mult ** n]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(t0, t_mult, epoch):\n"
               "    t_cur = epoch\n"
               "    t_i = t0\n"
               "    while t_cur >= t_i:\n"
               "        t_cur -= t_i\n"
               "        t_i *= t_mult\n"
               "    return [t_cur, t_i]\n"),
          }},
      .fixtures =
          {
              {"the start of the sixth cycle, factor 3", "N,3,121*N", "[0,243*N]"},
              {"the start of the fourth cycle, factor 10", "N,10,111*N", "[0,1000*N]"},
              {"inside the third cycle", "N,2,5*N", "[2*N,4*N]"},
              {"the start of the third cycle", "N,2,3*N", "[0,4*N]"},
              {"fixed cycles, three restarts in", "N+2,1,3*N+7", "[1,N+2]"},
              {"a longer first cycle", "5*N,2,5*N", "[0,10*N]"},
              {"inside the third cycle, factor 3", "N,3,5*N", "[N,9*N]"},
          },
  };
  return k_mechanism;
}
