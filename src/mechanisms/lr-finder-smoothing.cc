// Learning-rate finder smoothing without memory
// =============================================
//
// The failure. A learning-rate range test raises the rate every batch,
// smooths the losses with an exponential moving average avg = beta * avg +
// (1 - beta) * loss, removes the average's start-up bias by dividing by
// 1 - beta^t, and stops once the smoothed loss exceeds threshold times the
// best smoothed loss seen. titu1994/keras-one-cycle's LRFinder wrote the
// update as beta * loss + (1 - beta) * loss (that repository's issue 2): the "average" is just
// the current loss, and dividing it by 1 - beta^t inflates the early steps
// (twice the loss at the first step for beta = 0.5). The smoothed curve
// falls at the start whatever the losses do, every step becomes the new
// best, and a spike is judged against the last step instead of the minimum.
//
// Why the unsuccessful fix fails. Keeping the running average but dropping
// the bias correction, as the smoothing in Lightning-AI/pytorch-lightning
// issue 14167 effectively starts from 0, makes the first smoothed values far
// too small: the best is fixed at step 0 at (1 - beta) * loss, and the curve
// rising towards the true level soon passes threshold times that best, so
// the test stops on a flat loss. (The Lightning thread proposes starting the
// average at the first loss instead.)
//
// Why the repair holds. It keeps the average across steps and divides by
// 1 - beta^(t) at step t = i + 1, so a constant loss L smooths to exactly L
// and the best and the stop test see the real curve. beta is 0.5 or 0.75 and
// the losses are dyadic, so the average and beta^t are exact (t stays below
// 34 for 0.75) and the one division per step rounds the same in Python and
// C++; the comparisons in the fixtures are far from their thresholds.
//
// Source: https://github.com/titu1994/keras-one-cycle/issues/2
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Smoothing { NoMemory, NoBiasCorrection, Debiased };

Result<Value> range_test(const std::vector<double>& losses, double beta, double threshold, Smoothing smoothing) {
  double avg = 0.0;
  double best = 0.0;
  std::int64_t best_step = 0;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    const double loss = losses[i];
    double smoothed = 0.0;
    if (smoothing == Smoothing::NoBiasCorrection) {
      avg = beta * avg + (1 - beta) * loss;
      smoothed = avg;
    } else {
      avg = smoothing == Smoothing::NoMemory ? beta * loss + (1 - beta) * loss : beta * avg + (1 - beta) * loss;
      FAILMAP_TRY_ASSIGN(smoothed, args::divide(avg, 1 - std::pow(beta, static_cast<double>(i + 1))));
    }
    const auto step = static_cast<std::int64_t>(i);
    if (i > 0 && smoothed > threshold * best) return Value::list({Value::integer(step), Value::integer(best_step)});
    if (i == 0 || smoothed < best) {
      best = smoothed;
      best_step = step;
    }
  }
  return Value::list({Value::integer(static_cast<std::int64_t>(losses.size())), Value::integer(best_step)});
}

Result<Value> broken(const std::vector<double>& losses, double beta, double threshold) {
  return range_test(losses, beta, threshold, Smoothing::NoMemory);
}

Result<Value> unsuccessful(const std::vector<double>& losses, double beta, double threshold) {
  return range_test(losses, beta, threshold, Smoothing::NoBiasCorrection);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& losses, double beta, double threshold) {
  return range_test(losses, beta, threshold, Smoothing::Debiased);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_lr_finder_smoothing() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "lr-finder-smoothing",
      .title = "Learning-rate finder smoothing without memory",
      .source = "https://github.com/titu1994/keras-one-cycle/issues/2",
      .evaluation_group = {"lr-range-test", "ema"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {30},
      .prose =
          {
              .case_title = "The learning-rate finder's smoothed loss forgets every earlier step",
              .summary = "The learning-rate finder's smoothed loss forgets every earlier step.",
              .root_cause = "The moving average is updated from the current loss twice instead of from its previous "
                            "value, and the bias correction then inflates the early steps.",
              .failure = "The broken path's smoothed curve falls at the start whatever the losses do, so the best "
                         "step is always the latest and the stop test compares with the wrong best.",
              .unsuccessful_approach = "Keeping the running average but dropping the bias correction starts the "
                                       "curve near 0, so the rising start-up looks like divergence.",
              .contract = "Return [stop step, best step] of the range test: at step i (0-based) avg = beta * avg + "
                          "(1 - beta) * losses[i] (avg starts at 0.0), smoothed = avg / (1 - beta ** (i + 1)); stop "
                          "at step i > 0 when smoothed > threshold * best; then, if i == 0 or smoothed < best, best "
                          "= smoothed at step i; without a stop return [len(losses), best step].",
              .why_it_matters = "The range test picks the learning rate for the whole run; a smoothing bug moves the "
                                "suggested rate or stops the test before the loss has diverged.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, beta, threshold):\n"
               "    avg = 0.0\n"
               "    best = 0.0\n"
               "    best_step = 0\n"
               "    for i in range(len(losses)):\n"
               "        avg = beta * losses[i] + (1 - beta) * losses[i]\n"
               "        smoothed = avg / (1 - beta ** (i + 1))\n"
               "        if i > 0 and smoothed > threshold * best:\n"
               "            return [i, best_step]\n"
               "        if i == 0 or smoothed < best:\n"
               "            best = smoothed\n"
               "            best_step = i\n"
               "    return [len(losses), best_step]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, beta, threshold):\n"
               "    avg = 0.0\n"
               "    best = 0.0\n"
               "    best_step = 0\n"
               "    for i in range(len(losses)):\n"
               "        avg = beta * avg + (1 - beta) * losses[i]\n"
               "        smoothed = avg\n"
               "        if i > 0 and smoothed > threshold * best:\n"
               "            return [i, best_step]\n"
               "        if i == 0 or smoothed < best:\n"
               "            best = smoothed\n"
               "            best_step = i\n"
               "    return [len(losses), best_step]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, beta, threshold):\n"
               "    avg = 0.0\n"
               "    best = 0.0\n"
               "    best_step = 0\n"
               "    for i in range(len(losses)):\n"
               "        avg = beta * avg + (1 - beta) * losses[i]\n"
               "        smoothed = avg / (1 - beta ** (i + 1))\n"
               "        if i > 0 and smoothed > threshold * best:\n"
               "            return [i, best_step]\n"
               "        if i == 0 or smoothed < best:\n"
               "            best = smoothed\n"
               "            best_step = i\n"
               "    return [len(losses), best_step]\n"),
          }},
      .fixtures =
          {
              {"a spike after a flat run", "[1.0]*(N+2)+[16.0],0.5,4.0", "[N+2,0]"},
              {"a moderate rise", "[1.0]*(N+2)+[3.5],0.5,4.0", "[N+3,0]"},
              {"a moderate rise, a lower threshold", "[1.0]*(N+2)+[3.5],0.5,2.0", "[N+2,0]"},
              {"a falling loss", "[4.0]*(N+1)+[1.0]*(N+1),0.5,4.0", "[2*N+2,2*N+1]"},
              {"a moderate rise, heavier smoothing", "[1.0]*(N+2)+[3.5],0.75,2.0", "[N+3,0]"},
              {"a flat loss", "[1.0]*(N+3),0.5,1.5", "[N+3,0]"},
              {"a single step", "[2.0],0.5,4.0", "[1,0]"},
          },
  };
  return k_mechanism;
}
