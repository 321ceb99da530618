// ReduceLROnPlateau wait counter kept after a reduction
// =====================================================
//
// The failure. A plateau scheduler counts the epochs without improvement
// (`wait`) and lowers the learning rate when the count reaches `patience`.
// Keras' ReduceLROnPlateau callback reset `wait` only in its cooldown branch,
// so with cooldown=0 the count was never reset after a reduction: once the
// first reduction fired, every following epoch without improvement reduced
// the rate again, until the loss improved (keras-team/keras issue 3991, fixed
// by pull request 4011). Losses [1.0, 2.0, 2.0, 2.0, 2.0] with patience 2 and
// cooldown 0 reduce at epochs [2, 3, 4] where the contract gives [2, 4].
//
// Why the unsuccessful fix fails. Resetting `wait` at the reduction and
// dropping the cooldown branch as redundant (the reading of PyTorch issue
// 2545, which finds cooldown "counter-intuitive") gives the right epochs for
// cooldown=0, but counts the cooldown epochs as epochs without improvement:
// with patience 2 and cooldown 1 the second reduction comes one epoch early.
// (Constructed: the Keras thread fixes the reset only; this is the shortcut
// that passes the cooldown=0 reproducer of the issue.)
//
// Why the repair holds. Each reduction starts a new count, and the `cooldown`
// epochs after a reduction add nothing to it, while an improvement in any
// epoch still records the new best and clears the count. The losses are only
// compared, never combined, so the C++ gives the Python's epochs exactly.
//
// Source: https://github.com/keras-team/keras/issues/3991
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Counter { KeptAfterReduction, CooldownCounted, ResetAndCooled };

Result<Value> reductions(const std::vector<double>& losses, std::int64_t patience, std::int64_t cooldown,
                         Counter counter) {
  if (losses.empty()) return input_error("IndexError: list index out of range (losses[0])");
  double best = losses[0];
  std::int64_t wait = 0;
  std::int64_t cooling = 0;
  std::vector<std::int64_t> out;
  for (std::size_t epoch = 1; epoch < losses.size(); ++epoch) {
    const double loss = losses[epoch];
    bool in_cooldown = false;
    if (counter != Counter::CooldownCounted) {
      in_cooldown = cooling > 0;
      if (in_cooldown) {
        --cooling;
        if (counter == Counter::KeptAfterReduction) wait = 0;
      }
    }
    if (loss < best) {
      best = loss;
      wait = 0;
    } else if (!in_cooldown) {
      FAILMAP_TRY_ASSIGN(wait, checked_add(wait, 1));
      if (wait >= patience) {
        out.push_back(static_cast<std::int64_t>(epoch));
        if (counter != Counter::KeptAfterReduction) wait = 0;
        if (counter != Counter::CooldownCounted) cooling = cooldown;
      }
    }
  }
  return args::int_list_value(out);
}

Result<Value> broken(const std::vector<double>& losses, std::int64_t patience, std::int64_t cooldown) {
  return reductions(losses, patience, cooldown, Counter::KeptAfterReduction);
}

Result<Value> unsuccessful(const std::vector<double>& losses, std::int64_t patience, std::int64_t cooldown) {
  return reductions(losses, patience, cooldown, Counter::CooldownCounted);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& losses, std::int64_t patience, std::int64_t cooldown) {
  return reductions(losses, patience, cooldown, Counter::ResetAndCooled);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_plateau_wait_reset() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "plateau-wait-reset",
      .title = "ReduceLROnPlateau wait counter kept after a reduction",
      .source = "https://github.com/keras-team/keras/issues/3991",
      .evaluation_group = {"patience-counter"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The plateau scheduler reduces the learning rate on every epoch after the first reduction",
              .summary = "The plateau scheduler reduces the learning rate on every epoch after the first reduction.",
              .root_cause = "The count of epochs without improvement is reset only in the cooldown branch, so with "
                            "cooldown 0 it stays at patience after a reduction.",
              .failure = "The broken path reduces at the first plateau epoch that reaches patience and then at every "
                         "later epoch without improvement.",
              .unsuccessful_approach = "Resetting the count at each reduction but dropping the cooldown branch "
                                       "counts the cooldown epochs as epochs without improvement.",
              .contract = "Return the epochs (0-based) at which the rate is reduced: losses[0] sets the best; a loss "
                          "strictly below the best is an improvement (new best, count 0); any other epoch not in "
                          "cooldown adds 1 to the count, and when the count reaches patience the rate is reduced at "
                          "that epoch, the count restarts at 0 and the next cooldown epochs add nothing to it.",
              .why_it_matters = "A rate cut on every epoch of a plateau drives the learning rate to its floor within a "
                                "few epochs, and the run stops learning long before its budget ends.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, patience, cooldown):\n"
               "    best = losses[0]\n"
               "    wait = 0\n"
               "    cooling = 0\n"
               "    reductions = []\n"
               "    for epoch in range(1, len(losses)):\n"
               "        in_cooldown = cooling > 0\n"
               "        if in_cooldown:\n"
               "            cooling -= 1\n"
               "            wait = 0\n"
               "        if losses[epoch] < best:\n"
               "            best = losses[epoch]\n"
               "            wait = 0\n"
               "        elif not in_cooldown:\n"
               "            wait += 1\n"
               "            if wait >= patience:\n"
               "                reductions.append(epoch)\n"
               "                cooling = cooldown\n"
               "    return reductions\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, patience, cooldown):\n"
               "    best = losses[0]\n"
               "    wait = 0\n"
               "    reductions = []\n"
               "    for epoch in range(1, len(losses)):\n"
               "        if losses[epoch] < best:\n"
               "            best = losses[epoch]\n"
               "            wait = 0\n"
               "        else:\n"
               "            wait += 1\n"
               "            if wait >= patience:\n"
               "                reductions.append(epoch)\n"
               "                wait = 0\n"
               "    return reductions\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, patience, cooldown):\n"
               "    best = losses[0]\n"
               "    wait = 0\n"
               "    cooling = 0\n"
               "    reductions = []\n"
               "    for epoch in range(1, len(losses)):\n"
               "        in_cooldown = cooling > 0\n"
               "        if in_cooldown:\n"
               "            cooling -= 1\n"
               "        if losses[epoch] < best:\n"
               "            best = losses[epoch]\n"
               "            wait = 0\n"
               "        elif not in_cooldown:\n"
               "            wait += 1\n"
               "            if wait >= patience:\n"
               "                reductions.append(epoch)\n"
               "                wait = 0\n"
               "                cooling = cooldown\n"
               "    return reductions\n"),
          }},
      .fixtures =
          {
              {"plateau, no cooldown", "[1.0]+[2.0]*(3*N+2),N+1,0", "[N+1,2*N+2]"},
              {"plateau, cooldown 1", "[1.0]+[2.0]*(3*N+2),N+1,1", "[N+1,2*N+3]"},
              {"plateau, longer patience", "[1.0]+[2.0]*(3*N+2),2*N+1,0", "[2*N+1]"},
              {"an improvement between plateaus", "[3.0]+[4.0]*(N+1)+[2.0]+[4.0]*(N+1),N+1,0", "[N+1,2*N+3]"},
              {"a long cooldown", "[1.0]+[2.0]*(3*N+2),N+1,N", "[N+1,3*N+2]"},
              {"three reductions, no cooldown", "[1.0]+[2.0]*(4*N+3),N+1,0", "[N+1,2*N+2,3*N+3]"},
              {"plateau shorter than patience", "[1.0]+[2.0]*N,N+1,0", "[]"},
          },
  };
  return k_mechanism;
}
