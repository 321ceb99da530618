// GAE across an episode boundary
// ==============================
//
// The failure. A PPO worker collects a fixed number of steps; when an
// episode ends inside the rollout the environment resets and the next
// episode's steps follow in the same buffer. Generalized advantage estimation
// runs backward over the buffer, delta_t = r_t + gamma * V_{t+1} * (1 - d_t)
// - V_t and A_t = delta_t + gamma * lam * (1 - d_t) * A_{t+1}, where d_t = 1
// marks the last step of an episode. Super-mario-bros-PPO-pytorch's issue 21
// reports that its loop masks the bootstrap value but never resets the
// running advantage at d_t = 1, so the advantage of the last step of a dying
// episode includes the next episode's advantages: "It will make GAE bigger
// than expected", the critic loss diverges and the agent keeps the action
// that kills it. The broken path here is the plain single-episode formula
// with no episode ends at all (the estimator a full-episode rollout uses).
//
// Why the unsuccessful fix fails. Masking the bootstrap value with
// (1 - d_t), the Mario code, stops delta_t from reading the next episode's
// first value, but the recursion still carries A_{t+1} of the next episode
// into A_t. It is right when lam is 0 or no episode ends inside the
// rollout, and wrong for every step before an episode end otherwise.
//
// Why the repair holds. The factor (1 - d_t) multiplies both the bootstrap
// value and the carried advantage, so nothing crosses the end of an episode;
// the value of the step after the rollout (values[-1]) bootstraps only an
// episode that is still running. The C++ evaluates each expression in the
// Python's order; the fixtures use halves and whole numbers, so every
// intermediate value is exact.
//
// Source: https://github.com/vietnh1009/Super-mario-bros-PPO-pytorch/issues/21
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Episodes { Ignored, BootstrapMasked, BothMasked };

Result<Value> advantages(const std::vector<double>& rewards, const std::vector<double>& values,
                         args::IntListView dones, double gamma, double lam, Episodes episodes) {
  const std::size_t n = rewards.size();
  std::vector<double> out(n, 0.0);
  double gae = 0.0;
  for (std::size_t k = n; k-- > 0;) {
    if (k + 1 >= values.size()) return input_error("list index out of range (values needs len(rewards) + 1 entries)");
    double delta = 0.0;
    if (episodes == Episodes::Ignored) {
      delta = rewards[k] + gamma * values[k + 1] - values[k];
      gae = delta + gamma * lam * gae;
    } else {
      if (k >= dones.size()) return input_error("list index out of range (dones)");
      FAILMAP_TRY_ASSIGN(auto nonterminal_int, checked_sub(1, dones[k]));
      const double nonterminal = static_cast<double>(nonterminal_int);
      delta = rewards[k] + gamma * values[k + 1] * nonterminal - values[k];
      gae = episodes == Episodes::BothMasked ? delta + gamma * lam * nonterminal * gae : delta + gamma * lam * gae;
    }
    out[k] = gae;
  }
  return args::float_list_value(out);
}

Result<Value> broken(std::vector<double> rewards, std::vector<double> values, args::IntListView dones, double gamma,
                     double lam) {
  return advantages(rewards, values, dones, gamma, lam, Episodes::Ignored);
}

Result<Value> unsuccessful(std::vector<double> rewards, std::vector<double> values, args::IntListView dones,
                           double gamma, double lam) {
  return advantages(rewards, values, dones, gamma, lam, Episodes::BootstrapMasked);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> rewards, std::vector<double> values, args::IntListView dones, double gamma,
                       double lam) {
  return advantages(rewards, values, dones, gamma, lam, Episodes::BothMasked);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_gae_episode_reset() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "gae-episode-reset",
      .title = "GAE across an episode boundary",
      .source = "https://github.com/vietnh1009/Super-mario-bros-PPO-pytorch/issues/21",
      .evaluation_group = {"advantage-estimation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Advantages leak across an episode boundary inside a rollout",
              .summary = "Advantages leak across an episode boundary inside a rollout.",
              .root_cause = "The backward GAE recursion is not cut where an episode ends inside the rollout, so the "
                            "last step of one episode receives the next episode's value and advantages.",
              .failure = "The broken path applies the single-episode recursion to the whole buffer and ignores the "
                         "episode ends.",
              .unsuccessful_approach = "Masking only the bootstrap value with (1 - done) still carries the next "
                                       "episode's advantage into the step that ended an episode.",
              .contract = "dones[t] = 1 marks the last step of an episode; values has len(rewards) + 1 entries. Return "
                          "A_t for each t: delta_t = r_t + gamma * V_{t+1} * (1 - d_t) - V_t, A_t = delta_t + gamma "
                          "* lam * (1 - d_t) * A_{t+1}, computed backward with A after the rollout 0.0.",
              .why_it_matters = "Advantages that leak across episodes reward the actions that end an episode with the "
                                "next episode's returns, so the critic diverges and the policy learns the wrong action.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(rewards, values, dones, gamma, lam):\n"
               "    advantages = [0.0] * len(rewards)\n"
               "    gae = 0.0\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        delta = rewards[t] + gamma * values[t + 1] - values[t]\n"
               "        gae = delta + gamma * lam * gae\n"
               "        advantages[t] = gae\n"
               "    return advantages\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(rewards, values, dones, gamma, lam):\n"
               "    advantages = [0.0] * len(rewards)\n"
               "    gae = 0.0\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        delta = rewards[t] + gamma * values[t + 1] * (1 - dones[t]) - values[t]\n"
               "        gae = delta + gamma * lam * gae\n"
               "        advantages[t] = gae\n"
               "    return advantages\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(rewards, values, dones, gamma, lam):\n"
               "    advantages = [0.0] * len(rewards)\n"
               "    gae = 0.0\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        nonterminal = 1 - dones[t]\n"
               "        delta = rewards[t] + gamma * values[t + 1] * nonterminal - values[t]\n"
               "        gae = delta + gamma * lam * nonterminal * gae\n"
               "        advantages[t] = gae\n"
               "    return advantages\n"),
          }},
      .fixtures =
          {
              {"first episode ends, lam 0", "[1.0*N,2.0,4.0],[2.0,4.0,2.0*N,8.0],[1,0,0],0.5,0.0",
               "[1.0*N-2.0,1.0*N-2.0,8.0-2.0*N]"},
              {"first episode ends, lam 1", "[1.0*N,2.0,4.0],[2.0,4.0,2.0*N,8.0],[1,0,0],0.5,1.0",
               "[1.0*N-2.0,2.0,8.0-2.0*N]"},
              {"episode ends mid-rollout, lam 0", "[1.0*N,2.0,4.0],[2.0,4.0,2.0*N,8.0],[0,1,0],0.5,0.0",
               "[1.0*N,-2.0,8.0-2.0*N]"},
              {"episode ends mid-rollout, lam 1", "[1.0*N,2.0,4.0],[2.0,4.0,2.0*N,8.0],[0,1,0],0.5,1.0",
               "[1.0*N-1.0,-2.0,8.0-2.0*N]"},
              {"undiscounted", "[1.0*N,2.0,4.0],[2.0,4.0,2.0*N,8.0],[0,1,0],1.0,1.0", "[1.0*N,-2.0,12.0-2.0*N]"},
              {"a larger final reward", "[1.0*N,2.0,6.0],[2.0,4.0,2.0*N,8.0],[0,1,0],0.5,1.0",
               "[1.0*N-1.0,-2.0,10.0-2.0*N]"},
              {"a larger next-episode value", "[1.0*N,2.0,4.0],[2.0,4.0,4.0*N,8.0],[0,1,0],0.5,1.0",
               "[1.0*N-1.0,-2.0,8.0-4.0*N]"},
          },
  };
  return k_mechanism;
}
