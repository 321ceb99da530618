// RNG position on resume
// ======================
//
// The failure. Dropout masks, augmentation and resampling draw from random
// number generators whose position advances with every draw. A resumed run
// must continue each stream where the checkpoint left it, or it trains with
// different randomness than the uninterrupted run. modelscope/ms-swift pull
// request 9935 found the restored position overwritten: after the checkpoint
// loader restored the Python, NumPy, Torch and CUDA states, an initialisation
// step called set_random_seed(args.seed) and "replaced the restored training
// RNG position with the initial seed", so the resumed run replays the draws
// of the run's first steps.
//
// Why the unsuccessful fix fails. Re-deriving the position from the step
// counter the checkpoint does keep, one draw per optimizer step, looks
// equivalent to saving the generator. It is only when every step draws
// exactly once; with D draws per step (several dropout layers, several
// augmentations) the stream after S steps is at S * D, and the resumed run
// lands inside the draws it already used. (Constructed: the common shortcut,
// not a step shown in that pull request.)
//
// Why the repair holds. It restores the position the generator actually
// reached, S * D draws, which is what saving and loading the generator state
// does. The generator is modelled as counter-based, like Philox: draw k of
// seed s is (s * 7919 + k * 104729) % 1000003, so the expected draws are
// expressible and a wrong position is visible in every value. Integer
// arithmetic only, checked in C++.
//
// Source: https://github.com/modelscope/ms-swift/pull/9935
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  std::int64_t seed;
  std::int64_t draws_per_step;
  std::int64_t steps_done;
  std::int64_t count;
};

// [draw(seed, position + j) for j in range(1, count + 1)], where
// draw(s, k) = (s * 7919 + k * 104729) % 1000003.
Result<Value> draws_after(const Input& in, std::int64_t position) {
  FAILMAP_TRY_ASSIGN(auto base, checked_mul(in.seed, 7919));
  std::vector<std::int64_t> out;
  for (std::int64_t j = 1; j <= in.count; ++j) {
    FAILMAP_TRY_ASSIGN(auto k, checked_add(position, j));
    FAILMAP_TRY_ASSIGN(auto offset, checked_mul(k, 104729));
    FAILMAP_TRY_ASSIGN(auto sum, checked_add(base, offset));
    FAILMAP_TRY_ASSIGN(auto value, checked_mod(sum, 1000003));
    out.push_back(value);
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::int64_t seed, std::int64_t draws_per_step, std::int64_t steps_done, std::int64_t count) {
  const Input in{seed, draws_per_step, steps_done, count};
  return draws_after(in, 0);
}

Result<Value> unsuccessful(std::int64_t seed, std::int64_t draws_per_step, std::int64_t steps_done,
                           std::int64_t count) {
  const Input in{seed, draws_per_step, steps_done, count};
  return draws_after(in, in.steps_done);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t seed, std::int64_t draws_per_step, std::int64_t steps_done, std::int64_t count) {
  const Input in{seed, draws_per_step, steps_done, count};
  FAILMAP_TRY_ASSIGN(auto position, checked_mul(in.steps_done, in.draws_per_step));
  return draws_after(in, position);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_rng_resume_position() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "rng-resume-position",
      .title = "RNG position on resume",
      .source = "https://github.com/modelscope/ms-swift/pull/9935",
      .evaluation_group = {"resume-state"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A resumed run restarts its random streams from the initial seed",
              .summary = "A resumed run restarts its random streams from the initial seed.",
              .root_cause = "The generator position restored from the checkpoint is overwritten by reseeding with "
                            "the run's initial seed.",
              .failure = "The broken path draws from position 0 again, so the resumed run repeats the dropout "
                         "masks and augmentations of the run's first steps.",
              .unsuccessful_approach = "Re-deriving the position from the optimizer step counter assumes one draw "
                                       "per step and lands inside the draws already used when steps draw more.",
              .contract = "After S steps of D draws each, return the next count draws, draw(seed, S * D + j) for "
                          "j = 1 .. count, where draw(s, k) = (s * 7919 + k * 104729) % 1000003.",
              .why_it_matters = "A resumed run that replays or skips randomness is not the run that was "
                                "interrupted; step-for-step comparison and exact reproduction become impossible.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def draw(seed, k):\n"
               "    return (seed * 7919 + k * 104729) % 1000003\n"
               "def solve(seed, draws_per_step, steps_done, count):\n"
               "    position = 0\n"
               "    return [draw(seed, position + j) for j in range(1, count + 1)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def draw(seed, k):\n"
               "    return (seed * 7919 + k * 104729) % 1000003\n"
               "def solve(seed, draws_per_step, steps_done, count):\n"
               "    position = steps_done\n"
               "    return [draw(seed, position + j) for j in range(1, count + 1)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def draw(seed, k):\n"
               "    return (seed * 7919 + k * 104729) % 1000003\n"
               "def solve(seed, draws_per_step, steps_done, count):\n"
               "    position = steps_done * draws_per_step\n"
               "    return [draw(seed, position + j) for j in range(1, count + 1)]\n"),
          }},
      .fixtures =
          {
              {"several draws per step", "N,3,2,2", "[(N*7919+7*104729)%1000003,(N*7919+8*104729)%1000003]"},
              {"one draw per step", "N,1,5,2", "[(N*7919+6*104729)%1000003,(N*7919+7*104729)%1000003]"},
              {"fresh run", "N,4,0,2", "[(N*7919+104729)%1000003,(N*7919+2*104729)%1000003]"},
              {"resumed late", "N,2,N,1", "[(N*7919+(2*N+1)*104729)%1000003]"},
              {"one draw per step, resumed late", "N,1,N+3,1", "[(N*7919+(N+4)*104729)%1000003]"},
              {"no draws requested", "N,2,3,0", "[]"},
              {"many draws per step", "2*N,N+1,1,1", "[(2*N*7919+(N+2)*104729)%1000003]"},
          },
  };
  return k_mechanism;
}
