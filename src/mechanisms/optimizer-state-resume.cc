// Optimizer state on resume
// =========================
//
// The failure. Adam keeps per-parameter state between steps: the step count
// (for bias correction) and the moment estimates exp_avg and exp_avg_sq. A
// run resumed from a checkpoint must continue with that state, or the first
// steps after the resume behave like the first steps of training. OpenNMT-py
// issue 617 reports that train.py loaded the optimizer state from the
// checkpoint and then always called optim.set_parameters(), which builds a
// new optimizer and "completely undoes whatever had been loaded": every
// resume restarted Adam from step 0 with zero moments. The broken path here
// is that resume: step and exp_avg start over after the checkpoint.
//
// Why the unsuccessful fix fails. Restoring the step counter from the
// trainer's global step while the moment buffers are still rebuilt (a
// checkpoint that saves the model, the scheduler and the step but not
// optimizer.state_dict(); DeepSpeed PR 564 aligns a resumed CPU-Adam step
// count the same way) gives the right bias-correction step but an exp_avg
// that restarts at 0.0. It is right only when the gradients before the
// checkpoint were all zero.
//
// Why the repair holds. The state after the resume is the state the
// uninterrupted run had: the simulation carries step and exp_avg through the
// checkpoint, and returns the state after each step that follows it. The
// update exp_avg = beta * exp_avg + (1 - beta) * g is evaluated in the
// Python's order in C++; the fixtures use betas 0.5 and 0.75 and
// power-of-two gradients, so every value is exact.
//
// Source: https://github.com/OpenNMT/OpenNMT-py/issues/617
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Resume { Fresh, StepOnly, FullState };

// Python's grads[start:] start index for a list of n elements.
std::size_t slice_start(std::int64_t start, std::size_t n) {
  const auto size = static_cast<std::int64_t>(n);
  if (start < 0) start = start + size < 0 ? 0 : start + size;
  return static_cast<std::size_t>(start > size ? size : start);
}

Result<Value> resumed(const std::vector<double>& grads, std::int64_t resume_at, double beta, Resume resume) {
  Value::List out;
  std::int64_t step = resume == Resume::StepOnly ? resume_at : 0;
  double exp_avg = 0.0;
  if (resume == Resume::FullState) {
    for (std::size_t i = 0; i < grads.size(); ++i) {
      FAILMAP_TRY_ASSIGN(step, checked_add(step, 1));
      exp_avg = beta * exp_avg + (1 - beta) * grads[i];
      if (static_cast<std::int64_t>(i) >= resume_at) {
        out.push_back(Value::list({Value::integer(step), Value::floating(exp_avg)}));
      }
    }
    return Value::list(std::move(out));
  }
  for (std::size_t i = slice_start(resume_at, grads.size()); i < grads.size(); ++i) {
    FAILMAP_TRY_ASSIGN(step, checked_add(step, 1));
    exp_avg = beta * exp_avg + (1 - beta) * grads[i];
    out.push_back(Value::list({Value::integer(step), Value::floating(exp_avg)}));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(std::vector<double> grads, std::int64_t resume_at, double beta) {
  return resumed(grads, resume_at, beta, Resume::Fresh);
}

Result<Value> unsuccessful(std::vector<double> grads, std::int64_t resume_at, double beta) {
  return resumed(grads, resume_at, beta, Resume::StepOnly);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> grads, std::int64_t resume_at, double beta) {
  return resumed(grads, resume_at, beta, Resume::FullState);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_optimizer_state_resume() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "optimizer-state-resume",
      .title = "Optimizer state on resume",
      .source = "https://github.com/OpenNMT/OpenNMT-py/issues/617",
      .evaluation_group = {"resume-state"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A resumed run restarts Adam's step count and moments",
              .summary = "A resumed run restarts Adam's step count and moments.",
              .root_cause = "The optimizer is rebuilt after its state is loaded from the checkpoint, so the step count "
                            "and the moment estimates start over at the resume.",
              .failure = "The broken path continues from the checkpoint with step 0 and exp_avg 0.0.",
              .unsuccessful_approach = "Restoring the step count from the trainer's global step while the moment "
                                       "buffers are rebuilt gets the step right and exp_avg wrong.",
              .contract = "Training runs over grads from step = 0, exp_avg = 0.0: per gradient g, step += 1 and "
                          "exp_avg = beta * exp_avg + (1 - beta) * g. The run is checkpointed after resume_at steps "
                          "and resumed; return [step, exp_avg] after each step that follows the checkpoint.",
              .why_it_matters = "Losing optimizer state turns every preemption into a restart of Adam's warm-up: "
                                "the loss spikes and the resumed run diverges from the uninterrupted one.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(grads, resume_at, beta):\n"
               "    out = []\n"
               "    step = 0\n"
               "    exp_avg = 0.0\n"
               "    for g in grads[resume_at:]:\n"
               "        step += 1\n"
               "        exp_avg = beta * exp_avg + (1 - beta) * g\n"
               "        out.append([step, exp_avg])\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(grads, resume_at, beta):\n"
               "    out = []\n"
               "    step = resume_at\n"
               "    exp_avg = 0.0\n"
               "    for g in grads[resume_at:]:\n"
               "        step += 1\n"
               "        exp_avg = beta * exp_avg + (1 - beta) * g\n"
               "        out.append([step, exp_avg])\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(grads, resume_at, beta):\n"
               "    out = []\n"
               "    step = 0\n"
               "    exp_avg = 0.0\n"
               "    for i, g in enumerate(grads):\n"
               "        step += 1\n"
               "        exp_avg = beta * exp_avg + (1 - beta) * g\n"
               "        if i >= resume_at:\n"
               "            out.append([step, exp_avg])\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"resume after two steps", "[2.0*N,4.0,8.0,0.0],2,0.5", "[[3,5.0+0.25*N],[4,2.5+0.125*N]]"},
              {"resume after one step", "[2.0*N,4.0,8.0,0.0],1,0.5",
               "[[2,2.0+0.5*N],[3,5.0+0.25*N],[4,2.5+0.125*N]]"},
              {"a slower average", "[2.0*N,4.0,8.0,0.0],2,0.75",
               "[[3,2.75+0.28125*N],[4,2.0625+0.2109375*N]]"},
              {"zero gradients before the checkpoint", "[0.0,0.0,4.0*N,8.0],2,0.5", "[[3,2.0*N],[4,4.0+1.0*N]]"},
              {"never interrupted", "[2.0*N,4.0],0,0.5", "[[1,1.0*N],[2,2.0+0.5*N]]"},
              {"a long gap of zero gradients", "[4.0*N,0.0,0.0,0.0,8.0],3,0.5", "[[4,0.25*N],[5,4.0+0.125*N]]"},
              {"resume after a large first gradient", "[8.0,4.0*N,2.0],1,0.5", "[[2,2.0+2.0*N],[3,2.0+1.0*N]]"},
          },
  };
  return k_mechanism;
}
