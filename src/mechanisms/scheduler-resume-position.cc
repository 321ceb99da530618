// Scheduler resume position
// =========================
//
// The failure. A run resumes from a checkpoint taken after S optimizer
// steps. Model and optimizer state are loaded, but the learning-rate
// scheduler is built afresh (its state was not saved, or not loaded), so its
// step counter starts at 0: a warmup-then-linear-decay schedule warms up
// again from a learning rate of zero on an already-trained model, and the
// decay ends S steps after the intended end. vllm-project/speculators pull
// request 900 describes it: without the saved scheduler state "the resumed
// schedule sits at step previous_epoch of warmup: near-zero LR, then a full
// re-warmup and re-decay".
//
// Why the unsuccessful fix fails. The code that pull request replaced did
// seed the fresh scheduler, with last_epoch = previous_epoch, the epoch
// index. The scheduler steps once per optimizer step, so the resumed
// schedule sits at step S // steps_per_epoch instead of S: right only with
// one optimizer step per epoch, or at the very start of training.
//
// Why the repair holds. The scheduler is positioned at the number of
// optimizer steps taken, the counter it is stepped with, so the resumed run's
// learning rates are exactly the uninterrupted run's. The schedule is the
// linear warmup and decay of transformers' get_linear_schedule_with_warmup:
// t / max(1, warmup) during warmup, then max(0.0, (total - t) /
// max(1, total - warmup)); int / int is Python true division, correctly
// rounded in C++ as args::true_divide.
//
// Source: https://github.com/vllm-project/speculators/pull/900
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  std::int64_t warmup;
  std::int64_t total;
  std::int64_t steps_per_epoch;
  std::int64_t step;
  std::int64_t count;
};

// The schedule's factor at step t.
Result<double> factor(std::int64_t t, std::int64_t warmup, std::int64_t total) {
  if (t < warmup) return args::true_divide(t, warmup < 1 ? 1 : warmup);
  FAILMAP_TRY_ASSIGN(auto remaining, checked_sub(total, t));
  FAILMAP_TRY_ASSIGN(auto span, checked_sub(total, warmup));
  FAILMAP_TRY_ASSIGN(auto r, args::true_divide(remaining, span < 1 ? 1 : span));
  return r > 0.0 ? r : 0.0;  // max(0.0, r)
}

// [factor(start + k) for k in range(count)]
Result<Value> schedule_from(const Input& in, std::int64_t start) {
  std::vector<double> out;
  for (std::int64_t k = 0; k < in.count; ++k) {
    FAILMAP_TRY_ASSIGN(auto t, checked_add(start, k));
    FAILMAP_TRY_ASSIGN(auto f, factor(t, in.warmup, in.total));
    out.push_back(f);
  }
  return args::float_list_value(out);
}

Result<Value> broken(std::int64_t warmup, std::int64_t total, std::int64_t steps_per_epoch, std::int64_t step,
                     std::int64_t count) {
  const Input in{warmup, total, steps_per_epoch, step, count};
  return schedule_from(in, 0);
}

Result<Value> unsuccessful(std::int64_t warmup, std::int64_t total, std::int64_t steps_per_epoch, std::int64_t step,
                           std::int64_t count) {
  const Input in{warmup, total, steps_per_epoch, step, count};
  FAILMAP_TRY_ASSIGN(auto epoch, checked_floordiv(in.step, in.steps_per_epoch));
  return schedule_from(in, epoch);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t warmup, std::int64_t total, std::int64_t steps_per_epoch, std::int64_t step,
                       std::int64_t count) {
  const Input in{warmup, total, steps_per_epoch, step, count};
  return schedule_from(in, in.step);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_scheduler_resume_position() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "scheduler-resume-position",
      .title = "Scheduler resume position",
      .source = "https://github.com/vllm-project/speculators/pull/900",
      .evaluation_group = {"resume-state"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A resumed run restarts its learning-rate schedule",
              .summary = "A resumed run restarts its learning-rate schedule.",
              .root_cause = "The learning-rate scheduler is rebuilt on resume without its saved position, so its "
                            "step counter does not match the optimizer steps already taken.",
              .failure = "The broken path restarts the schedule at step 0: the resumed run warms up again from a "
                         "learning rate of zero.",
              .unsuccessful_approach = "Seeding the fresh scheduler with the epoch index positions a per-step "
                                       "schedule at S // steps_per_epoch instead of S.",
              .contract = "After S optimizer steps, return the factors of steps S .. S + count - 1 of the linear "
                          "warmup-then-decay schedule: t / max(1, W) for t < W, else max(0.0, (T - t) / max(1, T - W)).",
              .why_it_matters = "A re-warmup or a misplaced decay on a trained model wastes the compute of the "
                                "resumed run and can destabilise it; preemptible training must be position-exact.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def factor(t, warmup, total):\n"
               "    if t < warmup:\n"
               "        return t / max(1, warmup)\n"
               "    return max(0.0, (total - t) / max(1, total - warmup))\n"
               "def solve(warmup, total, steps_per_epoch, step, count):\n"
               "    start = 0\n"
               "    return [factor(start + k, warmup, total) for k in range(count)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def factor(t, warmup, total):\n"
               "    if t < warmup:\n"
               "        return t / max(1, warmup)\n"
               "    return max(0.0, (total - t) / max(1, total - warmup))\n"
               "def solve(warmup, total, steps_per_epoch, step, count):\n"
               "    start = step // steps_per_epoch\n"
               "    return [factor(start + k, warmup, total) for k in range(count)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def factor(t, warmup, total):\n"
               "    if t < warmup:\n"
               "        return t / max(1, warmup)\n"
               "    return max(0.0, (total - t) / max(1, total - warmup))\n"
               "def solve(warmup, total, steps_per_epoch, step, count):\n"
               "    start = step\n"
               "    return [factor(start + k, warmup, total) for k in range(count)]\n"),
          }},
      .fixtures =
          {
              {"resumed inside warmup", "4*N,8*N,2*N,N,2", "[0.25,(N+1)/(4*N)]"},
              {"one step per epoch", "2,4*N+2,1,2*N+2,1", "[0.5]"},
              {"resumed in the decay", "2,4*N+2,2*N+3,2*N+3,1", "[(2*N-1)/(4*N)]"},
              {"two epochs into warmup", "8*N,16*N,2,4,1", "[4/(8*N)]"},
              {"fresh run", "4,8,N,0,3", "[0.0,0.25,0.5]"},
              {"resumed past the end", "2,4,N,4*N+4,1", "[0.0]"},
              {"resumed at the end of warmup", "2*N,4*N,1,2*N,2", "[1.0,(2*N-1)/(2*N)]"},
      },
  };
  return k_mechanism;
}
