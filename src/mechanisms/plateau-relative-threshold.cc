// Plateau relative threshold on negative values
// =============================================
//
// The failure. A plateau scheduler counts a step as an improvement when the
// monitored value beats the best by a relative margin. Written as value <
// best * (1 - rtol), the margin has the right sign only while the best is
// positive: for a negative best, best * (1 - rtol) lies ABOVE the best, so a
// flat or even worsening value counts as an improvement and the rate is never
// reduced. google-deepmind/optax pull request 1767 shows it for
// contrib.reduce_on_plateau: a flat +1.0 reduces the scale every two steps, a
// flat -1.0 never does; PyTorch's ReduceLROnPlateau has the same test
// (pytorch/pytorch issue 47513). Negative log-likelihoods, ELBOs and negative
// rewards are monitored this way.
//
// Why the unsuccessful fix fails. Switching to an absolute threshold with the
// same number, value < best - rtol (the threshold_mode='abs' workaround
// suggested in pytorch/pytorch issue 38622), has the right sign for negative
// values, but is no longer relative: it demands a margin of rtol whatever the
// scale, too large for small values and too small for large ones.
//
// Why the repair holds. The margin is rtol * abs(best), subtracted from the
// best: value < best - rtol * abs(best) requires the same relative
// improvement on either side of zero. Fixture values and rtol are dyadic, so
// the product and the difference are exact in Python and C++.
//
// Source: https://github.com/google-deepmind/optax/pull/1767
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Margin { ScaledBest, Absolute, RelativeAbs };

Result<Value> reductions(const std::vector<double>& values, std::int64_t patience, double rtol, Margin margin) {
  if (values.empty()) return input_error("IndexError: list index out of range (values[0])");
  double best = values[0];
  std::int64_t bad = 0;
  std::vector<std::int64_t> out;
  for (std::size_t step = 1; step < values.size(); ++step) {
    const double v = values[step];
    bool better = false;
    switch (margin) {
      case Margin::ScaledBest: better = v < best * (1 - rtol); break;
      case Margin::Absolute: better = v < best - rtol; break;
      case Margin::RelativeAbs: better = v < best - rtol * std::fabs(best); break;
    }
    if (better) {
      best = v;
      bad = 0;
    } else {
      FAILMAP_TRY_ASSIGN(bad, checked_add(bad, 1));
      if (bad >= patience) {
        out.push_back(static_cast<std::int64_t>(step));
        bad = 0;
      }
    }
  }
  return args::int_list_value(out);
}

Result<Value> broken(const std::vector<double>& values, std::int64_t patience, double rtol) {
  return reductions(values, patience, rtol, Margin::ScaledBest);
}

Result<Value> unsuccessful(const std::vector<double>& values, std::int64_t patience, double rtol) {
  return reductions(values, patience, rtol, Margin::Absolute);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& values, std::int64_t patience, double rtol) {
  return reductions(values, patience, rtol, Margin::RelativeAbs);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_plateau_relative_threshold() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "plateau-relative-threshold",
      .title = "Plateau relative threshold on negative values",
      .source = "https://github.com/google-deepmind/optax/pull/1767",
      .evaluation_group = {"patience-counter"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A plateau scheduler never reduces the rate on a negative loss",
              .summary = "A plateau scheduler never reduces the rate on a negative loss.",
              .root_cause = "The improvement test value < best * (1 - rtol) moves the threshold above the best when "
                            "the best is negative, so a flat or worse value counts as an improvement.",
              .failure = "The broken path never reduces the learning rate on a negative monitored value, and the "
                         "best ratchets towards worse values.",
              .unsuccessful_approach = "An absolute margin value < best - rtol has the right sign but is no longer "
                                       "relative to the size of the value.",
              .contract = "Return the steps (0-based) at which the rate is reduced: values[0] is the first best; a "
                          "value < best - rtol * abs(best) is an improvement (new best, count 0); any other step adds "
                          "1 to the count, and when it reaches patience the rate is reduced at that step and the "
                          "count restarts at 0.",
              .why_it_matters = "Negative objectives (log-likelihoods, ELBOs, rewards) are common; a scheduler that "
                                "silently never fires on them keeps a too-large learning rate for the whole run.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, patience, rtol):\n"
               "    best = values[0]\n"
               "    bad = 0\n"
               "    reductions = []\n"
               "    for step in range(1, len(values)):\n"
               "        if values[step] < best * (1 - rtol):\n"
               "            best = values[step]\n"
               "            bad = 0\n"
               "        else:\n"
               "            bad += 1\n"
               "            if bad >= patience:\n"
               "                reductions.append(step)\n"
               "                bad = 0\n"
               "    return reductions\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, patience, rtol):\n"
               "    best = values[0]\n"
               "    bad = 0\n"
               "    reductions = []\n"
               "    for step in range(1, len(values)):\n"
               "        if values[step] < best - rtol:\n"
               "            best = values[step]\n"
               "            bad = 0\n"
               "        else:\n"
               "            bad += 1\n"
               "            if bad >= patience:\n"
               "                reductions.append(step)\n"
               "                bad = 0\n"
               "    return reductions\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, patience, rtol):\n"
               "    best = values[0]\n"
               "    bad = 0\n"
               "    reductions = []\n"
               "    for step in range(1, len(values)):\n"
               "        if values[step] < best - rtol * abs(best):\n"
               "            best = values[step]\n"
               "            bad = 0\n"
               "        else:\n"
               "            bad += 1\n"
               "            if bad >= patience:\n"
               "                reductions.append(step)\n"
               "                bad = 0\n"
               "    return reductions\n"),
          }},
      .fixtures =
          {
              {"a flat negative value", "[-1.0]*(2*N+1),N,0.25", "[N,2*N]"},
              {"a negative value getting worse", "[-4.0]+[-3.75]*(2*N),N,0.25", "[N,2*N]"},
              {"a large negative improvement", "[-4.0]+[-6.0]*(N+1),N,0.25", "[N+1]"},
              {"a positive fall short of the relative margin", "[8.0]+[7.0]*N,N,0.25", "[N]"},
              {"small positive values", "[0.5]+[0.25]*(N+1),N,0.25", "[N+1]"},
              {"a flat negative value, longer patience", "[-1.0]*(2*N+1),N+1,0.25", "[N+1]"},
              {"a positive fall beyond a smaller margin", "[8.0]+[7.0]*N,N,0.0625", "[]"},
          },
  };
  return k_mechanism;
}
