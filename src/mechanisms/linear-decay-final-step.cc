// Linear decay final step
// =======================
//
// The contract this mechanism checks. A run of T optimizer updates decays
// the learning rate linearly from `base` at update 0 to `floor` at the last
// update, T - 1:
//
//     lr(t) = floor + (base - floor) * (T - 1 - t) / (T - 1),  t = 0 .. T-1
//
// and a run of a single update (T = 1) takes that one update at `floor`
// (it is the final update); T <= 0 gives no updates. In Python's order of
// evaluation: ((base - floor) * (T - 1 - t)) / (T - 1), then floor + that.
//
// The failure. The broken schedule measures progress as t / T instead of
// t / (T - 1): lr(t) = floor + (base - floor) * (T - t) / T. It starts at
// `base` but its last update is floor + (base - floor) / T: the run ends
// before the rate reaches the floor, so the annealed final phase the recipe
// relies on never happens, and with T = 1 it trains the only update at the
// peak rate.
//
// Why the unsuccessful fix fails. Switching the denominator to T - 1 (and
// guarding T = 1) makes the ramp end on the last update, but the rewritten
// line decays base * (T - 1 - t) / (T - 1), toward 0, dropping the floor
// offset. With a nonzero floor the run ends at learning rate 0 and every
// intermediate rate is too low; it agrees with the contract only when the
// floor is 0 or T = 1.
//
// Why the repair holds. It is the contract's formula, term for term: at
// t = T - 1 the product is (base - floor) * 0 = 0.0 and the rate is exactly
// `floor`, and at t = 0 it is base up to one rounding of the division (exact
// on failmap's fixtures, whose values are small dyadic numbers).
//
// torchtitan PR 1261 reworks the off-by-ones at both ends of its warmup and decay schedule.
// Source: https://github.com/pytorch/torchtitan/pull/1261
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

Result<Value> broken(double base, double floor, std::int64_t total) {
  std::vector<double> lrs;
  for (std::int64_t t = 0; t < total; ++t) {
    // floor + (base - floor) * (total - t) / total
    const double step = (base - floor) * static_cast<double>(total - t);
    FAILMAP_TRY_ASSIGN(auto frac, args::divide(step, static_cast<double>(total)));
    lrs.push_back(floor + frac);
  }
  return args::float_list_value(lrs);
}

// Both strategies that end the ramp on update T - 1. Offset::Dropped is the
// unsuccessful fix, base * (total - 1 - t) / (total - 1); Offset::Kept is the
// contract.
enum class Offset { Dropped, Kept };

Result<Value> to_last_update(double base, double floor, std::int64_t total, Offset offset) {
  std::vector<double> lrs;
  if (total == 1) {
    lrs.push_back(floor);
    return args::float_list_value(lrs);
  }
  for (std::int64_t t = 0; t < total; ++t) {
    // t < total, so total - 1 - t >= 0 and total - 1 >= 1: no overflow.
    const double remaining = static_cast<double>(total - 1 - t);
    const double span = static_cast<double>(total - 1);
    if (offset == Offset::Dropped) {
      lrs.push_back(base * remaining / span);
    } else {
      lrs.push_back(floor + (base - floor) * remaining / span);
    }
  }
  return args::float_list_value(lrs);
}

Result<Value> unsuccessful(double base, double floor, std::int64_t total) {
  return to_last_update(base, floor, total, Offset::Dropped);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double base, double floor, std::int64_t total) {
  return to_last_update(base, floor, total, Offset::Kept);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_linear_decay_final_step() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "linear-decay-final-step",
      .title = "Linear decay final step",
      .source = "https://github.com/pytorch/torchtitan/pull/1261",
      .evaluation_group = {"lr-schedule"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Linear decay ends above its floor on the final update",
              .summary = "Linear decay ends above its floor on the final update.",
              .root_cause = "Decay progress is measured as t / T instead of t / (T - 1), so the last update, "
                            "t = T - 1, is still one step short of the end of the ramp.",
              .failure = "The broken schedule returns floor + (base - floor) * (T - t) / T; its final learning rate "
                         "is floor + (base - floor) / T and a one-update run trains at the peak rate.",
              .unsuccessful_approach = "Dividing by T - 1 reaches the end of the ramp, but the rewritten formula "
                                       "decays base toward 0 and drops the floor offset.",
              .contract = "Return lr(t) = floor + (base - floor) * (T - 1 - t) / (T - 1) for t = 0 .. T - 1, so "
                          "update T - 1 runs exactly at floor; a single update runs at floor.",
              .why_it_matters = "Recipes rely on the final annealed updates at the floor rate; a schedule that "
                                "never reaches it, or overshoots to zero, changes the model that is shipped.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(base, floor, total):\n"
               "    lrs = []\n"
               "    for t in range(total):\n"
               "        lrs.append(floor + (base - floor) * (total - t) / total)\n"
               "    return lrs\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(base, floor, total):\n"
               "    if total == 1:\n"
               "        return [floor]\n"
               "    lrs = []\n"
               "    for t in range(total):\n"
               "        lrs.append(base * (total - 1 - t) / (total - 1))\n"
               "    return lrs\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(base, floor, total):\n"
               "    if total == 1:\n"
               "        return [floor]\n"
               "    lrs = []\n"
               "    for t in range(total):\n"
               "        lrs.append(floor + (base - floor) * (total - 1 - t) / (total - 1))\n"
               "    return lrs\n"),
          }},
      .fixtures =
          {
              {"reaches the floor", "4.0*N,2.0*N,3", "[4.0*N,3.0*N,2.0*N]"},
              {"zero floor", "2.0*N,0.0,3", "[2.0*N,1.0*N,0.0]"},
              {"single update", "1.0*N,0.25,1", "[0.25]"},
              {"no updates", "1.0,0.0,0", "[]"},
              {"flat schedule", "0.5,0.5,N", "[0.5]*N"},
              {"four updates", "7.0*N,1.0*N,4", "[7.0*N,5.0*N,3.0*N,1.0*N]"},
              {"two updates", "2.0*N,1.0*N,2", "[2.0*N,1.0*N]"},
          },
  };
  return k_mechanism;
}
