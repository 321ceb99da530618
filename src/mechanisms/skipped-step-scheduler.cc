// Skipped step scheduler
// ======================
//
// The failure. With a dynamic loss scaler, scaler.step(optimizer) silently
// skips optimizer.step() on an iteration whose gradients hold inf or NaN,
// and scaler.update() halves the scale. A training loop that calls
// scheduler.step() after every iteration advances the learning-rate
// schedule on steps the optimizer never took: the schedule runs ahead of the
// updates by the number of overflows, warmup ends early, and PyTorch warns
// "Detected call of lr_scheduler.step() before optimizer.step()". The broken
// path counts one schedule step per iteration.
//
// Why the unsuccessful fix fails. GradScaler.step() does not say whether it
// stepped, so the fix proposed in transformers PR 11144 compares the scale
// before and after the update: "if it changed, then the optimizer wasn't
// run and we skip the scheduler step". The scale also changes when it grows:
// after growth_interval consecutive iterations without overflow, update()
// doubles it, and on that iteration the optimizer did step. Treating every
// change as a skip drops one schedule step per growth (with growth_interval
// 1, every step). The merged code compares scale_before <= scale_after; the
// description's "changed" is the rule modelled here.
//
// Why the repair holds. The schedule advances exactly on the iterations
// whose optimizer step ran, i.e. those without overflow, whatever the scale
// did; growth and backoff are bookkeeping of the scaler, not of the
// schedule. The growth tracker is modelled as torch's: reset to 0 by an
// overflow, incremented otherwise, and reset when it reaches growth_interval.
//
// Source: https://github.com/huggingface/transformers/pull/11144
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Rule { EveryIteration, ScaleUnchanged, NoOverflow };

// Schedule steps taken over the iterations, each flagged 1 (overflow) or 0.
Result<Value> count_steps(args::IntListView overflow, std::int64_t growth_interval, Rule rule) {
  std::int64_t tracker = 0;
  std::int64_t steps = 0;
  for (std::int64_t found_inf : overflow) {
    bool changed = false;
    if (found_inf != 0) {
      tracker = 0;
      changed = true;
    } else {
      ++tracker;
      if (tracker == growth_interval) {
        tracker = 0;
        changed = true;
      }
    }
    const bool step = rule == Rule::EveryIteration   ? true
                      : rule == Rule::ScaleUnchanged ? !changed
                                                     : found_inf == 0;
    if (step) ++steps;
  }
  return Value::integer(steps);
}

Result<Value> broken(args::IntListView overflow, std::int64_t growth_interval) {
  return count_steps(overflow, growth_interval, Rule::EveryIteration);
}
Result<Value> unsuccessful(args::IntListView overflow, std::int64_t growth_interval) {
  return count_steps(overflow, growth_interval, Rule::ScaleUnchanged);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView overflow, std::int64_t growth_interval) {
  return count_steps(overflow, growth_interval, Rule::NoOverflow);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_skipped_step_scheduler() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "skipped-step-scheduler",
      .title = "Skipped step scheduler",
      .source = "https://github.com/huggingface/transformers/pull/11144",
      .evaluation_group = {"grad-scaler-update"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // The fixture lists hold up to 3 * N flags: within the 1,000,000-element cap.
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "The learning-rate schedule advances on steps the loss scaler skipped",
              .summary = "The learning-rate schedule advances on steps the loss scaler skipped.",
              .root_cause = "The scaler skips optimizer.step() on overflow without saying so, and the loop steps "
                            "the scheduler after every iteration regardless.",
              .failure = "The broken path counts a schedule step for every iteration, overflowed ones included, so "
                         "the schedule runs ahead of the updates.",
              .unsuccessful_approach = "Skipping the scheduler whenever the loss scale changed also skips the "
                                       "iterations on which the scale grew, where the optimizer did step.",
              .contract = "Return the number of schedule steps after the iterations, advancing exactly on "
                          "iterations without overflow (flag 0); the scaler's growth and backoff do not matter.",
              .why_it_matters = "Overflow is most frequent early in a run, exactly during warmup, so a schedule that "
                                "counts skipped steps ends warmup before the model has taken those updates.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(overflow, growth_interval):\n"
               "    tracker = 0\n"
               "    steps = 0\n"
               "    for found_inf in overflow:\n"
               "        if found_inf:\n"
               "            tracker = 0\n"
               "        else:\n"
               "            tracker += 1\n"
               "            if tracker == growth_interval:\n"
               "                tracker = 0\n"
               "        steps += 1\n"
               "    return steps\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(overflow, growth_interval):\n"
               "    tracker = 0\n"
               "    steps = 0\n"
               "    for found_inf in overflow:\n"
               "        changed = False\n"
               "        if found_inf:\n"
               "            tracker = 0\n"
               "            changed = True\n"
               "        else:\n"
               "            tracker += 1\n"
               "            if tracker == growth_interval:\n"
               "                tracker = 0\n"
               "                changed = True\n"
               "        if not changed:\n"
               "            steps += 1\n"
               "    return steps\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(overflow, growth_interval):\n"
               "    tracker = 0\n"
               "    steps = 0\n"
               "    for found_inf in overflow:\n"
               "        if found_inf:\n"
               "            tracker = 0\n"
               "            continue\n"
               "        tracker += 1\n"
               "        if tracker == growth_interval:\n"
               "            tracker = 0\n"
               "        steps += 1\n"
               "    return steps\n"),
          }},
      .fixtures =
          {
              {"growth steps still step", "[0]*(2*N+2),N+1", "2*N+2"},
              {"overflow on the first iteration", "[1]+[0]*N,N+1", "N"},
              {"every iteration overflows", "[1]*N,N", "0"},
              {"no iterations", "[],2", "0"},
              {"overflow resets the tracker", "[0]*N+[1]+[0]*N,N+1", "2*N"},
              {"growth on every iteration", "[0]*N,1", "N"},
              {"growth then overflow", "[0,0,1]*N,2", "2*N"},
          },
  };
  return k_mechanism;
}
