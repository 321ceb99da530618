// Scheduler interval mismatch
// ===========================
//
// The failure. A per-step schedule (OneCycleLR, linear or cosine decay with
// num_training_steps) is built with a horizon counted in optimizer steps,
// epochs * steps_per_epoch, and must be stepped once per optimizer step. The
// broken path steps it once per epoch (Lightning's interval='epoch', or a
// scheduler.step() at the end of the epoch loop), as PyTorch issue 65417
// reports: after E epochs the schedule has advanced E of its E * S steps,
// so the learning rate barely moves off its starting value.
//
// Why the unsuccessful fix fails. The workaround given in that issue is to
// set the horizon to the number of epochs (total_steps=epochs) and keep
// stepping per epoch. The schedule now completes, and the learning rate at
// the first step of every epoch is right, but it is constant within each
// epoch: a staircase where the contract asks for a value per step, and the
// last steps of the run are taken at the learning rate of the last epoch's
// start instead of near zero.
//
// Why the repair holds. Step the scheduler once per optimizer step with the
// horizon in steps, so step s gets lr(s) = base * (T - s) / T with
// T = epochs * steps_per_epoch (a linear decay stands for any per-step
// schedule). The product T is checked int arithmetic; the float * int / int
// is the same two correctly rounded operations in Python and C++, and
// Python's // is floor division in both.
//
// Source: https://github.com/pytorch/pytorch/issues/65417
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Stepping { PerEpochStepHorizon, PerEpochEpochHorizon, PerStep };

// Python `a // b` on ints: floor division; b == 0 is ZeroDivisionError.
Result<std::int64_t> floor_divide(std::int64_t a, std::int64_t b) {
  if (b == 0) return input_error("ZeroDivisionError: integer division or modulo by zero");
  if (a == INT64_MIN && b == -1) return arithmetic_error(a, "//", b);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Result<Value> lrs_at(double base_lr, std::int64_t epochs, std::int64_t steps_per_epoch, args::IntListView at,
                     Stepping stepping) {
  FAILMAP_TRY_ASSIGN(auto total, checked_mul(epochs, steps_per_epoch));
  std::vector<double> out;
  for (std::int64_t s : at) {
    std::int64_t position = s;
    std::int64_t horizon = total;
    if (stepping != Stepping::PerStep) {
      FAILMAP_TRY_ASSIGN(position, floor_divide(s, steps_per_epoch));
      if (stepping == Stepping::PerEpochEpochHorizon) horizon = epochs;
    }
    FAILMAP_TRY_ASSIGN(auto remaining, checked_sub(horizon, position));
    FAILMAP_TRY_ASSIGN(auto lr, args::divide(base_lr * static_cast<double>(remaining), static_cast<double>(horizon)));
    out.push_back(lr);
  }
  return args::float_list_value(out);
}

Result<Value> broken(double base_lr, std::int64_t epochs, std::int64_t steps_per_epoch, args::IntListView at) {
  return lrs_at(base_lr, epochs, steps_per_epoch, at, Stepping::PerEpochStepHorizon);
}
Result<Value> unsuccessful(double base_lr, std::int64_t epochs, std::int64_t steps_per_epoch, args::IntListView at) {
  return lrs_at(base_lr, epochs, steps_per_epoch, at, Stepping::PerEpochEpochHorizon);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double base_lr, std::int64_t epochs, std::int64_t steps_per_epoch, args::IntListView at) {
  return lrs_at(base_lr, epochs, steps_per_epoch, at, Stepping::PerStep);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_scheduler_interval_mismatch() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "scheduler-interval-mismatch",
      .title = "Scheduler interval mismatch",
      .source = "https://github.com/pytorch/pytorch/issues/65417",
      .evaluation_group = {"scheduler-step-count"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A per-step schedule is stepped once per epoch",
              .summary = "A per-step schedule is stepped once per epoch.",
              .root_cause = "The schedule's horizon is counted in optimizer steps but scheduler.step() is called "
                            "once per epoch, so the two units disagree.",
              .failure = "The broken path advances the schedule one step per epoch against a horizon of epochs * "
                         "steps_per_epoch, so only a sliver of the schedule is ever used.",
              .unsuccessful_approach = "Setting the horizon to the number of epochs completes the schedule but "
                                       "holds each learning rate constant for a whole epoch.",
              .contract = "Return, for each requested optimizer step s, base * (T - s) / T with T = epochs * "
                          "steps_per_epoch, computed in that order (base * (T - s) first, then / T): the schedule "
                          "stepped once per optimizer step.",
              .why_it_matters = "A schedule in the wrong unit leaves the learning rate high to the end of training "
                                "or moves it in steps, and nothing fails loudly.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(base_lr, epochs, steps_per_epoch, at):\n"
               "    total = epochs * steps_per_epoch\n"
               "    out = []\n"
               "    for s in at:\n"
               "        epoch = s // steps_per_epoch\n"
               "        out.append(base_lr * (total - epoch) / total)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(base_lr, epochs, steps_per_epoch, at):\n"
               "    total = epochs * steps_per_epoch\n"
               "    out = []\n"
               "    for s in at:\n"
               "        epoch = s // steps_per_epoch\n"
               "        out.append(base_lr * (epochs - epoch) / epochs)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(base_lr, epochs, steps_per_epoch, at):\n"
               "    total = epochs * steps_per_epoch\n"
               "    out = []\n"
               "    for s in at:\n"
               "        out.append(base_lr * (total - s) / total)\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"epoch starts", "2.0,2,N+1,[0,N+1]", "[2.0,1.0]"},
              {"last step", "2.0,2,N+1,[2*N+1]", "[2.0*1/(2*N+2)]"},
              {"one step per epoch", "4.0,N+2,1,[0,1,2]", "[4.0*(N+2)/(N+2),4.0*(N+1)/(N+2),4.0*N/(N+2)]"},
              {"middle of the only epoch", "1.0,1,2*N,[N]", "[1.0*N/(2*N)]"},
              {"no steps requested", "1.0,2,N,[]", "[]"},
              {"one step into the second epoch", "3.0,4,N,[N+1]", "[3.0*(3*N-1)/(4*N)]"},
              {"one step into the third epoch", "4.0,4,N+1,[2*N+3]", "[4.0*(2*N+1)/(4*N+4)]"},
      },
  };
  return k_mechanism;
}
