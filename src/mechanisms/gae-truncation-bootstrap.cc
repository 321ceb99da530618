// Truncation bootstrap
// ====================
//
// The failure. An episode can end in two ways: terminated (a true terminal
// state, worth nothing afterwards) or truncated (a time limit cut it off;
// the state it stopped in still has a value). A value target computed
// backward over a rollout must restart at both, but only termination may
// zero the future: at a truncation the target bootstraps from V(s_final),
// the critic's value of the observation the episode stopped in (not the
// next episode's first state, which follows in the buffer after the reset).
// skrl's issue 449 reports that neither setting of its compute_gae does
// this: with time_limit_bootstrap off, truncated steps are not boundaries and
// "advantages leak across episode boundaries"; the broken path here is that
// recursion, which only knows `terminated`.
//
// Why the unsuccessful fix fails. Treating truncation as termination (skrl's
// time_limit_bootstrap on, and cleanrl's `done = terminated or truncated`)
// restores the boundary but zeroes the future at a time limit, so every state
// near a time limit is undervalued: with gamma 0.5, reward 2 and a final
// value of 2N the target is 2 where it should be 2 + N. It is right only when
// the final state's value happens to be 0.
//
// Why the repair holds. Walking backward, the running target is replaced at
// each episode end: by 0.0 after a termination (terminated wins when both
// flags are set) and by final_values[t] after a truncation, before the step's
// reward is added; the bootstrap after the rollout, last_value, serves only
// an episode still running. The C++ evaluates each expression in the
// Python's order; halves and whole numbers keep every value exact.
//
// Source: https://github.com/Toni-SM/skrl/issues/449
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Ends { TerminatedOnly, TruncatedAsTerminal, Bootstrapped };

Result<Value> targets(const std::vector<double>& rewards, args::IntListView terminated, args::IntListView truncated,
                      const std::vector<double>& final_values, double last_value, double gamma, Ends ends) {
  const std::size_t n = rewards.size();
  std::vector<double> out(n, 0.0);
  double ret = last_value;
  for (std::size_t k = n; k-- > 0;) {
    if (k >= terminated.size()) return input_error("list index out of range (terminated)");
    if (ends == Ends::TerminatedOnly) {
      FAILMAP_TRY_ASSIGN(auto keep, checked_sub(1, terminated[k]));
      ret = rewards[k] + gamma * ret * static_cast<double>(keep);
    } else {
      if (terminated[k] == 0 && k >= truncated.size()) return input_error("list index out of range (truncated)");
      if (ends == Ends::TruncatedAsTerminal) {
        // done = terminated[t] or truncated[t]: the first truthy operand
        const std::int64_t done = terminated[k] != 0 ? terminated[k] : truncated[k];
        FAILMAP_TRY_ASSIGN(auto keep, checked_sub(1, done));
        ret = rewards[k] + gamma * ret * static_cast<double>(keep);
      } else {
        if (terminated[k] != 0) {
          ret = 0.0;
        } else if (truncated[k] != 0) {
          if (k >= final_values.size()) return input_error("list index out of range (final_values)");
          ret = final_values[k];
        }
        ret = rewards[k] + gamma * ret;
      }
    }
    out[k] = ret;
  }
  return args::float_list_value(out);
}

Result<Value> broken(std::vector<double> rewards, args::IntListView terminated, args::IntListView truncated,
                     std::vector<double> final_values, double last_value, double gamma) {
  return targets(rewards, terminated, truncated, final_values, last_value, gamma, Ends::TerminatedOnly);
}

Result<Value> unsuccessful(std::vector<double> rewards, args::IntListView terminated, args::IntListView truncated,
                           std::vector<double> final_values, double last_value, double gamma) {
  return targets(rewards, terminated, truncated, final_values, last_value, gamma, Ends::TruncatedAsTerminal);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> rewards, args::IntListView terminated, args::IntListView truncated,
                       std::vector<double> final_values, double last_value, double gamma) {
  return targets(rewards, terminated, truncated, final_values, last_value, gamma, Ends::Bootstrapped);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_gae_truncation_bootstrap() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "gae-truncation-bootstrap",
      .title = "Truncation bootstrap",
      .source = "https://github.com/Toni-SM/skrl/issues/449",
      .evaluation_group = {"advantage-estimation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A time-limit truncation is either ignored or treated as a terminal state",
              .summary = "A time-limit truncation is either ignored or treated as a terminal state.",
              .root_cause = "The backward return recursion knows only `terminated`; a truncated episode is not a "
                            "boundary, so the next episode's returns leak into it.",
              .failure = "The broken path computes ret = r_t + gamma * ret * (1 - terminated_t) and runs straight "
                         "through truncations.",
              .unsuccessful_approach = "Treating truncated like terminated cuts the episode but zeroes the future, "
                                       "undervaluing every state near a time limit.",
              .contract = "Return the value targets, backward from ret = last_value: after a terminated step ret "
                          "restarts at 0.0 (terminated wins), after a truncated step at final_values[t]; then ret = "
                          "rewards[t] + gamma * ret.",
              .why_it_matters = "Time limits end most episodes in practice; zeroing or leaking their future biases "
                                "every value target near the limit and stalls learning.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(rewards, terminated, truncated, final_values, last_value, gamma):\n"
               "    returns = [0.0] * len(rewards)\n"
               "    ret = last_value\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        ret = rewards[t] + gamma * ret * (1 - terminated[t])\n"
               "        returns[t] = ret\n"
               "    return returns\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(rewards, terminated, truncated, final_values, last_value, gamma):\n"
               "    returns = [0.0] * len(rewards)\n"
               "    ret = last_value\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        done = terminated[t] or truncated[t]\n"
               "        ret = rewards[t] + gamma * ret * (1 - done)\n"
               "        returns[t] = ret\n"
               "    return returns\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(rewards, terminated, truncated, final_values, last_value, gamma):\n"
               "    returns = [0.0] * len(rewards)\n"
               "    ret = last_value\n"
               "    for t in reversed(range(len(rewards))):\n"
               "        if terminated[t]:\n"
               "            ret = 0.0\n"
               "        elif truncated[t]:\n"
               "            ret = final_values[t]\n"
               "        ret = rewards[t] + gamma * ret\n"
               "        returns[t] = ret\n"
               "    return returns\n"),
          }},
      .fixtures =
          {
              {"truncated where the final value is 0", "[1.0*N,2.0,4.0],[0,0,0],[0,1,0],[0.0,0.0,0.0],8.0,0.5",
               "[1.0+1.0*N,2.0,8.0]"},
              {"terminated at the first step", "[1.0*N,2.0,4.0],[1,0,0],[0,1,0],[0.0,0.0,0.0],8.0,0.5",
               "[1.0*N,2.0,8.0]"},
              {"one running episode", "[1.0*N,2.0,4.0],[0,0,0],[0,0,0],[0.0,0.0,0.0],8.0,0.5", "[3.0+1.0*N,6.0,8.0]"},
              {"truncated with a final value", "[1.0*N,2.0,4.0],[0,0,0],[0,1,0],[0.0,2.0*N,0.0],8.0,0.5",
               "[1.0+1.5*N,2.0+1.0*N,8.0]"},
              {"a larger bootstrap after the rollout", "[1.0*N,2.0,4.0],[0,0,0],[0,1,0],[0.0,2.0*N,0.0],16.0,0.5",
               "[1.0+1.5*N,2.0+1.0*N,12.0]"},
              {"undiscounted", "[1.0*N,2.0,4.0],[0,0,0],[0,1,0],[0.0,2.0*N,0.0],8.0,1.0",
               "[2.0+3.0*N,2.0+2.0*N,12.0]"},
              {"a larger last reward", "[1.0*N,2.0,6.0],[0,0,0],[0,1,0],[0.0,2.0*N,0.0],8.0,0.5",
               "[1.0+1.5*N,2.0+1.0*N,10.0]"},
          },
  };
  return k_mechanism;
}
