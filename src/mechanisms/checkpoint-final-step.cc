// Checkpoint at the final step
// ============================
//
// The failure. A training loop saves a checkpoint every `every` steps by
// testing the step counter before it is advanced, so it saves at steps 0,
// every, 2 * every, ... and never after the last step. The DreamBooth
// extension's issue 403 reports exactly this: with 1000 steps and a
// checkpoint every 500 it saves for 0 and 500 but not for 1000, so the
// finished model is lost unless the user generates it by hand (users worked
// around it by training 1001 steps). The broken path here is
// `range(0, total_steps, every)`.
//
// Why the unsuccessful fix fails. Counting steps from 1,
// `range(every, total_steps + 1, every)`, saves the final step when the
// total is a multiple of the interval (1000 with 500), but not when it is
// not: 1001 steps with an interval of 500 save 500 and 1000 and lose the
// last step's weights, the case axolotl issue 1613 and anemoi-training issue
// 183 report. (Constructed as a fix; the thread itself only works around.)
//
// Why the repair holds. It walks the completed step count 1..total and saves
// when the count is a multiple of the interval or is the last step, once
// each, so the final weights are always saved and nothing is saved twice.
// Integer arithmetic only, checked in C++.
//
// Source: https://github.com/d8ahazard/sd_dreambooth_extension/issues/403
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Schedule { BeforeStep, AfterStepMultiples, AfterStepWithFinal };

constexpr std::size_t k_save_cap = 1000000;

// list(range(start, stop, step)), Python's semantics; a zero step is Python's ValueError.
Result<Value> python_range(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0) return input_error("range() arg 3 must not be zero");
  std::vector<std::int64_t> out;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
    if (out.size() >= k_save_cap) return input_error("more than 1,000,000 checkpoints are outside this reproducer");
    out.push_back(i);
    auto next = checked_add(i, step);
    if (!next) break;  // the next value would be past int64, so past stop as well
    i = *next;
  }
  return args::int_list_value(out);
}

Result<Value> saved(std::int64_t total_steps, std::int64_t every, Schedule schedule) {
  if (schedule == Schedule::BeforeStep) return python_range(0, total_steps, every);
  if (schedule == Schedule::AfterStepMultiples) {
    FAILMAP_TRY_ASSIGN(auto stop, checked_add(total_steps, 1));
    return python_range(every, stop, every);
  }
  if (total_steps > 100000000) return input_error("more than 100,000,000 steps are outside this reproducer");
  std::vector<std::int64_t> out;
  for (std::int64_t step = 1; step <= total_steps; ++step) {
    FAILMAP_TRY_ASSIGN(auto rest, checked_mod(step, every));
    if (rest == 0 || step == total_steps) {
      if (out.size() >= k_save_cap) return input_error("more than 1,000,000 checkpoints are outside this reproducer");
      out.push_back(step);
    }
    if (step == total_steps) break;
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::int64_t total_steps, std::int64_t every) {
  return saved(total_steps, every, Schedule::BeforeStep);
}

Result<Value> unsuccessful(std::int64_t total_steps, std::int64_t every) {
  return saved(total_steps, every, Schedule::AfterStepMultiples);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t total_steps, std::int64_t every) {
  return saved(total_steps, every, Schedule::AfterStepWithFinal);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_checkpoint_final_step() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "checkpoint-final-step",
      .title = "Checkpoint at the final step",
      .source = "https://github.com/d8ahazard/sd_dreambooth_extension/issues/403",
      .evaluation_group = {"checkpoint-cadence"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Periodic checkpoints never include the final step",
              .summary = "Periodic checkpoints never include the final step.",
              .root_cause = "The save test runs on the step counter before the step is taken, so it fires at 0, "
                            "every, 2 * every, ... and never after the last step.",
              .failure = "The broken path returns range(0, total_steps, every): 1000 steps every 500 save [0, 500].",
              .unsuccessful_approach = "Saving at the multiples of the interval counted from 1 keeps the final step "
                                       "only when the total is a multiple of the interval.",
              .contract = "Steps count completed optimizer steps 1..total_steps; return, ascending and without "
                          "repeats, every step that is a multiple of `every` plus the final step.",
              .why_it_matters = "The finished model is the one a run exists to produce; losing it wastes the last "
                                "interval of training or the whole run.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(total_steps, every):\n"
               "    return list(range(0, total_steps, every))\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(total_steps, every):\n"
               "    return list(range(every, total_steps + 1, every))\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(total_steps, every):\n"
               "    saved = []\n"
               "    for step in range(1, total_steps + 1):\n"
               "        if step % every == 0 or step == total_steps:\n"
               "            saved.append(step)\n"
               "    return saved\n"),
          }},
      .fixtures =
          {
              {"total a multiple", "4*N,2*N", "[2*N,4*N]"},
              {"total not a multiple", "2*N+1,N+1", "[N+1,2*N+1]"},
              {"shorter than one interval", "N,N+1", "[N]"},
              {"every step", "3,1", "[1,2,3]"},
              {"one interval exactly", "N,N", "[N]"},
              {"three intervals", "3*N,N", "[N,2*N,3*N]"},
              {"one interval of the whole run", "2*N+1,2*N+1", "[2*N+1]"},
          },
  };
  return k_mechanism;
}
