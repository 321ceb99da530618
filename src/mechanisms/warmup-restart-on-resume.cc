// Warmup restart on resume
// ========================
//
// The failure. A run resumed from a checkpoint must continue its
// learning-rate schedule where it stopped. When the checkpoint holds the
// model and optimizer but not the scheduler's state, the resumed run builds
// a fresh scheduler whose step counter starts at 0: the warmup runs again
// from a tiny learning rate, and every later value is shifted by the
// resume step (the_well PR 63, lightly-train PR 301, xmodaler issue 15 all
// report the restarted warmup). The broken path restarts the schedule at the
// resume step.
//
// Why the unsuccessful fix fails. Saving the scheduler's state_dict with the
// checkpoint is the fix, and allennlp PR 1650 records how it first went
// wrong: "the checkpoints were being saved before updating the learning rate
// scheduler, so when the learning rate scheduler was restored, it was an
// epoch behind". The resumed run then repeats one schedule value and stays
// one step behind for the rest of training, which only shows during warmup
// or decay.
//
// Why the repair holds. The checkpoint is written after scheduler.step(),
// so the restored counter equals the number of steps taken and step t of the
// resumed run gets lr(t), as if training had never stopped. The schedule is
// a linear warmup, lr(t) = base * (t + 1) / warmup for t < warmup and base
// after it; Python's float * int / int and the C++ perform the same two
// correctly rounded operations.
//
// Source: https://github.com/allenai/allennlp/pull/1650
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Restore { Nothing, OneStepBehind, Exact };

Result<Value> resumed_lrs(double base_lr, std::int64_t warmup, std::int64_t steps, std::int64_t resume_at,
                          Restore restore) {
  std::vector<double> out;
  for (std::int64_t t = resume_at; t < steps; ++t) {
    std::int64_t k = t;  // the restored scheduler's step counter
    if (restore == Restore::Nothing) k = t - resume_at;
    if (restore == Restore::OneStepBehind && resume_at > 0) k = t - 1;
    if (k < warmup) {
      FAILMAP_TRY_ASSIGN(auto lr, args::divide(base_lr * static_cast<double>(k + 1), static_cast<double>(warmup)));
      out.push_back(lr);
    } else {
      out.push_back(base_lr);
    }
  }
  return args::float_list_value(out);
}

Result<Value> broken(double base_lr, std::int64_t warmup, std::int64_t steps, std::int64_t resume_at) {
  return resumed_lrs(base_lr, warmup, steps, resume_at, Restore::Nothing);
}
Result<Value> unsuccessful(double base_lr, std::int64_t warmup, std::int64_t steps, std::int64_t resume_at) {
  return resumed_lrs(base_lr, warmup, steps, resume_at, Restore::OneStepBehind);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double base_lr, std::int64_t warmup, std::int64_t steps, std::int64_t resume_at) {
  return resumed_lrs(base_lr, warmup, steps, resume_at, Restore::Exact);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_warmup_restart_on_resume() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "warmup-restart-on-resume",
      .title = "Warmup restart on resume",
      .source = "https://github.com/allenai/allennlp/pull/1650",
      .evaluation_group = {"scheduler-step-count"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // The longest expected list holds N + 3 values: within the 1,000,000-element cap.
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A resumed run restarts its learning-rate warmup",
              .summary = "A resumed run restarts its learning-rate warmup.",
              .root_cause = "The checkpoint does not carry the scheduler's step counter, so the resumed scheduler "
                            "counts from zero.",
              .failure = "The broken path restarts the schedule at the resume step: warmup runs again and every "
                         "later learning rate is shifted.",
              .unsuccessful_approach = "Saving the scheduler state before scheduler.step() restores a counter one "
                                       "step behind, repeating a value and lagging for the rest of the run.",
              .contract = "Return the learning rates of steps resume_at .. steps - 1, step t getting base * (t + 1) "
                          "/ warmup while t < warmup and base after, as in an uninterrupted run.",
              .why_it_matters = "A second warmup in the middle of training discards progress and can destabilise "
                                "a model that is already past the large-learning-rate phase.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(base_lr, warmup, steps, resume_at):\n"
               "    out = []\n"
               "    for t in range(resume_at, steps):\n"
               "        k = t - resume_at\n"
               "        if k < warmup:\n"
               "            out.append(base_lr * (k + 1) / warmup)\n"
               "        else:\n"
               "            out.append(base_lr)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(base_lr, warmup, steps, resume_at):\n"
               "    out = []\n"
               "    for t in range(resume_at, steps):\n"
               "        k = t - 1 if resume_at > 0 else t\n"
               "        if k < warmup:\n"
               "            out.append(base_lr * (k + 1) / warmup)\n"
               "        else:\n"
               "            out.append(base_lr)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(base_lr, warmup, steps, resume_at):\n"
               "    out = []\n"
               "    for t in range(resume_at, steps):\n"
               "        k = t\n"
               "        if k < warmup:\n"
               "            out.append(base_lr * (k + 1) / warmup)\n"
               "        else:\n"
               "            out.append(base_lr)\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"resume after warmup", "2.0,4,4+N,4", "[2.0]*N"},
              {"resume mid-warmup", "4.0,4,4+N,2", "[3.0,4.0]+[4.0]*N"},
              {"no resume", "1.0,2,N+2,0", "[0.5,1.0]+[1.0]*N"},
              {"resume at the end", "1.0,2,N,N", "[]"},
              {"resume at step 1", "8.0,4,4+N,1", "[4.0,6.0,8.0]+[8.0]*N"},
              {"one-step warmup", "3.0,1,N+1,1", "[3.0]*N"},
              {"long warmup resumed late", "1.0,8,8+N,6", "[0.875,1.0]+[1.0]*N"},
          },
  };
  return k_mechanism;
}
