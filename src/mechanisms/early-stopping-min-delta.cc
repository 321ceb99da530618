// Early stopping min_delta applied with the wrong sign
// ====================================================
//
// The failure. Early stopping counts the epochs whose validation loss does
// not improve on the best by more than min_delta and stops when the count
// reaches patience. The widely copied EarlyStopping class of
// Bjarten/early-stopping-pytorch compared the negated loss with
// `best_score - delta` (that repository's issue 5), so a loss that rose by less than min_delta
// counted as an improvement: it became the new best, the count went back to
// 0, and a slowly worsening run never stopped. Losses [2.0, 2.25, 2.25] with
// patience 2 and min_delta 0.5 train all 3 epochs with epoch 2 as the best,
// where the contract stops after epoch 2 with epoch 0 as the best: [3, 0].
// The repository fixed the comparison to `best_score + delta`.
//
// Why the unsuccessful fix fails. Flipping the comparison but keeping a
// running minimum as the best (`best = min(best, loss)` every epoch) makes
// each small decrease the new reference, so improvements smaller than
// min_delta per epoch never add up: losses falling 0.25 a step with
// min_delta 0.5 stop as a plateau although they improve by 0.75 over three
// epochs. Keras and Lightning move the best only on an improvement that
// counts. (Constructed from that difference; the thread shows only the sign
// fix.)
//
// Why the repair holds. An epoch improves when its loss is strictly below
// best - min_delta (Lightning issue 9297: a change of exactly min_delta does
// not qualify); only then does the best move, to that loss, and the count
// restart. The fixtures use quarters and halves, so best - min_delta is exact
// in binary floating point, in Python and in C++.
//
// Source: https://github.com/Bjarten/early-stopping-pytorch/issues/5
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Rule { WithinDeltaImproves, RunningMinimum, StrictImprovement };

Result<Value> early_stop(const std::vector<double>& losses, std::int64_t patience, double min_delta, Rule rule) {
  if (losses.empty()) return input_error("IndexError: list index out of range (losses[0])");
  double best = losses[0];
  std::int64_t best_epoch = 0;
  std::int64_t wait = 0;
  for (std::size_t i = 1; i < losses.size(); ++i) {
    const double loss = losses[i];
    const auto epoch = static_cast<std::int64_t>(i);
    const bool improved = rule == Rule::WithinDeltaImproves ? !(loss > best + min_delta) : loss < best - min_delta;
    if (improved) {
      best = loss;
      best_epoch = epoch;
      wait = 0;
    } else {
      FAILMAP_TRY_ASSIGN(wait, checked_add(wait, 1));
      if (rule == Rule::RunningMinimum && loss < best) best = loss;
      if (wait >= patience) return Value::list({Value::integer(epoch + 1), Value::integer(best_epoch)});
    }
  }
  return Value::list({Value::integer(static_cast<std::int64_t>(losses.size())), Value::integer(best_epoch)});
}

Result<Value> broken(const std::vector<double>& losses, std::int64_t patience, double min_delta) {
  return early_stop(losses, patience, min_delta, Rule::WithinDeltaImproves);
}

Result<Value> unsuccessful(const std::vector<double>& losses, std::int64_t patience, double min_delta) {
  return early_stop(losses, patience, min_delta, Rule::RunningMinimum);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& losses, std::int64_t patience, double min_delta) {
  return early_stop(losses, patience, min_delta, Rule::StrictImprovement);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_early_stopping_min_delta() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "early-stopping-min-delta",
      .title = "Early stopping min_delta applied with the wrong sign",
      .source = "https://github.com/Bjarten/early-stopping-pytorch/issues/5",
      .evaluation_group = {"patience-counter"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Early stopping counts a slightly worse loss as an improvement",
              .summary = "Early stopping counts a slightly worse loss as an improvement.",
              .root_cause = "The improvement test adds min_delta to the best loss instead of subtracting it, so a loss "
                            "up to min_delta worse than the best resets the patience count.",
              .failure = "The broken path keeps training through a slowly worsening plateau and reports a late, "
                         "worse epoch as the best.",
              .unsuccessful_approach = "Fixing the sign but moving the best to every lower loss means small "
                                       "improvements never add up to min_delta, and training stops too early.",
              .contract = "Return [epochs trained, best epoch]: losses[0] is the first best; an epoch improves when "
                          "its loss < best - min_delta (strictly), and only then becomes the best with the count at "
                          "0; any other epoch adds 1 to the count, and training stops after the epoch where the count "
                          "reaches patience (else after all epochs).",
              .why_it_matters = "Early stopping decides both the training budget and the checkpoint that ships; a "
                                "wrong improvement test wastes compute or keeps a worse model.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, patience, min_delta):\n"
               "    best = losses[0]\n"
               "    best_epoch = 0\n"
               "    wait = 0\n"
               "    for epoch in range(1, len(losses)):\n"
               "        if losses[epoch] > best + min_delta:\n"
               "            wait += 1\n"
               "            if wait >= patience:\n"
               "                return [epoch + 1, best_epoch]\n"
               "        else:\n"
               "            best = losses[epoch]\n"
               "            best_epoch = epoch\n"
               "            wait = 0\n"
               "    return [len(losses), best_epoch]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, patience, min_delta):\n"
               "    best = losses[0]\n"
               "    best_epoch = 0\n"
               "    wait = 0\n"
               "    for epoch in range(1, len(losses)):\n"
               "        if losses[epoch] < best - min_delta:\n"
               "            best = losses[epoch]\n"
               "            best_epoch = epoch\n"
               "            wait = 0\n"
               "        else:\n"
               "            wait += 1\n"
               "            best = min(best, losses[epoch])\n"
               "            if wait >= patience:\n"
               "                return [epoch + 1, best_epoch]\n"
               "    return [len(losses), best_epoch]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, patience, min_delta):\n"
               "    best = losses[0]\n"
               "    best_epoch = 0\n"
               "    wait = 0\n"
               "    for epoch in range(1, len(losses)):\n"
               "        if losses[epoch] < best - min_delta:\n"
               "            best = losses[epoch]\n"
               "            best_epoch = epoch\n"
               "            wait = 0\n"
               "        else:\n"
               "            wait += 1\n"
               "            if wait >= patience:\n"
               "                return [epoch + 1, best_epoch]\n"
               "    return [len(losses), best_epoch]\n"),
          }},
      .fixtures =
          {
              {"rises within min_delta", "[2.0]+[2.25]*(N+1),N,0.5", "[N+1,0]"},
              {"rises within min_delta, longer patience", "[2.0]+[2.25]*(N+1),N+1,0.5", "[N+2,0]"},
              {"an improvement of exactly min_delta", "[2.0]+[1.5]*(N+1),N,0.5", "[N+1,0]"},
              {"the same fall over a smaller min_delta", "[2.0]+[1.5]*(N+1),N,0.25", "[N+2,1]"},
              {"a real improvement", "[2.0]+[1.25]*(N+1),N,0.5", "[N+2,1]"},
              {"small steps add up to an improvement", "[4.0,3.75,3.5,3.25]+[3.25]*(N+2),3,0.5", "[7,3]"},
              {"small steps, then a long plateau", "[4.0,3.75,3.5,3.25]+[3.25]*N,N+2,0.5", "[N+4,3]"},
          },
  };
  return k_mechanism;
}
