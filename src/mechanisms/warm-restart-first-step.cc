// Warm restarts one step late
// ===========================
//
// The failure. CosineAnnealingWarmRestarts anneals over cycles of T_0,
// T_0 * T_mult, T_0 * T_mult^2, ... iterations and jumps back to the base
// rate at the start of each cycle. With the PyTorch 1.1 step order (read the
// rate, train, then call scheduler.step()), the scheduler took an extra step
// in its constructor: the first iteration ran at the end of a cycle (the
// minimum rate) and every restart came one iteration late. pytorch/pytorch
// issue 23480 shows it for T_0=1, T_mult=2: the rate is at its maximum at
// iterations 1, 2, 4, 8 where the schedule restarts at 0, 1, 3, 7. The
// constructor reset the position to the user's last_epoch (-1) after the
// base class had already advanced it.
//
// Why the unsuccessful fix fails. Deriving the position from the iteration
// counter, restart whenever iteration % T_0 == 0, removes the extra step and
// is right for T_mult=1, but drops the growth of the cycles: with T_mult=2 it
// restarts every T_0 iterations. (Constructed: the closed form of the
// fixed-period schedule; pull request 23833 fixed the constructor instead.)
//
// Why the repair holds. The position starts at 0 in the first cycle and
// advances once per iteration after the rate is read; at the end of a cycle
// it wraps to 0 and the cycle length is multiplied by T_mult. Every quantity
// is an integer, so the C++ (checked arithmetic) lists the same iterations.
//
// Source: https://github.com/pytorch/pytorch/issues/23480
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

Result<Value> restarts_from(std::int64_t start, std::int64_t t0, std::int64_t t_mult, std::int64_t steps) {
  std::int64_t t_cur = start;
  std::int64_t t_i = t0;
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < steps; ++i) {
    if (t_cur == 0) out.push_back(i);
    FAILMAP_TRY_ASSIGN(t_cur, checked_add(t_cur, 1));
    if (t_cur >= t_i) {
      t_cur -= t_i;
      FAILMAP_TRY_ASSIGN(t_i, checked_mul(t_i, t_mult));
    }
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::int64_t t0, std::int64_t t_mult, std::int64_t steps) {
  return restarts_from(-1, t0, t_mult, steps);
}

Result<Value> unsuccessful(std::int64_t t0, std::int64_t /*t_mult*/, std::int64_t steps) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < steps; ++i) {
    FAILMAP_TRY_ASSIGN(auto r, checked_mod(i, t0));
    if (r == 0) out.push_back(i);
  }
  return args::int_list_value(out);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t t0, std::int64_t t_mult, std::int64_t steps) {
  return restarts_from(0, t0, t_mult, steps);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warm_restart_first_step() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warm-restart-first-step",
      .title = "Warm restarts one step late",
      .source = "https://github.com/pytorch/pytorch/issues/23480",
      .evaluation_group = {"cyclic-schedule"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {10000},
      .prose =
          {
              .case_title = "Cosine warm restarts start at the end of a cycle and restart one step late",
              .summary = "Cosine warm restarts start at the end of a cycle and restart one step late.",
              .root_cause = "The scheduler's position starts at -1 instead of 0 because the constructor resets it "
                            "after the base class has already taken the initial step.",
              .failure = "The broken path runs the first iteration at the minimum rate and reaches every restart one "
                         "iteration late.",
              .unsuccessful_approach = "Restarting whenever the iteration is a multiple of T_0 fixes the offset "
                                       "but ignores T_mult, so the cycles never grow.",
              .contract = "Return the iterations, among 0..steps-1, at which the rate is read at a cycle start "
                          "(T_cur == 0): T_cur starts at 0, the rate is read before each iteration and T_cur advances "
                          "by 1 after it; the first cycle lasts t0 iterations and each next one t_mult times the "
                          "previous.",
              .why_it_matters = "A schedule shifted by one step starts training at the minimum rate and puts every "
                                "restart, and every snapshot taken at a cycle end, one iteration off the design.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(t0, t_mult, steps):\n"
               "    t_cur = -1\n"
               "    t_i = t0\n"
               "    restarts = []\n"
               "    for i in range(steps):\n"
               "        if t_cur == 0:\n"
               "            restarts.append(i)\n"
               "        t_cur += 1\n"
               "        if t_cur >= t_i:\n"
               "            t_cur -= t_i\n"
               "            t_i *= t_mult\n"
               "    return restarts\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(t0, t_mult, steps):\n"
               "    return [i for i in range(steps) if i % t0 == 0]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(t0, t_mult, steps):\n"
               "    t_cur = 0\n"
               "    t_i = t0\n"
               "    restarts = []\n"
               "    for i in range(steps):\n"
               "        if t_cur == 0:\n"
               "            restarts.append(i)\n"
               "        t_cur += 1\n"
               "        if t_cur >= t_i:\n"
               "            t_cur -= t_i\n"
               "            t_i *= t_mult\n"
               "    return restarts\n"),
          }},
      .fixtures =
          {
              {"cycles double", "N,2,7*N+1", "[0,N,3*N,7*N]"},
              {"a fixed period", "N,1,3*N", "[0,N,2*N]"},
              {"a fixed period, one step more", "N,1,3*N+1", "[0,N,2*N,3*N]"},
              {"cycles triple", "N,3,13*N", "[0,N,4*N]"},
              {"cycles double, a short run", "N,2,3*N", "[0,N]"},
              {"a longer first cycle", "N+1,2,3*N", "[0,N+1]"},
              {"a single iteration", "N,2,1", "[0]"},
          },
  };
  return k_mechanism;
}
