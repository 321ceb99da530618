// Calibration error with confidence 1.0 in a bin of its own
// =========================================================
//
// The failure. Expected calibration error splits the confidences into
// n_bins equal-width bins [0, 1/n), [1/n, 2/n), ..., [1 - 1/n, 1], the last
// closed on the right, and sums |confidence - accuracy| over the bins
// weighted by their share of the samples. torchmetrics computed the bin index
// as bucketize(confidence, boundaries, right=True) - 1, which sends a
// confidence of exactly 1.0 to index n_bins: an extra bin the accumulators had
// room for, so nothing failed, but those samples were scored apart from the
// rest of the last bin (Lightning-AI/torchmetrics issue 3510). A saturated
// sigmoid or softmax gives 1.0 often. Confidences [0.875, 1.0] with outcomes
// [1, 0] and 4 bins score 0.5625 instead of 0.4375.
//
// Why the unsuccessful fix fails. Binning with (lo, hi] intervals
// (ceil(confidence * n_bins) - 1) puts 1.0 in the last bin, but moves every
// confidence that lies on an inner edge, 0.5 with 2 bins, into the bin below,
// and gives confidence 0.0 the index -1, so it falls out of every bin: the
// zero-confidence case fixed in NandhaKishorM/laya pull request 39.
// (Constructed: the torchmetrics thread proposes clamping the index.)
//
// Why the repair holds. Bin index floor(confidence * n_bins), clamped to
// n_bins - 1, so each bin is closed on the left and the last also on the
// right. Per bin it sums the confidences and the hits; the error is the sum
// over bins of |confidence sum - hits|, divided by the number of samples
// once at the end. The fixtures use confidences in eighths and 1, 2 or 4
// bins, so every product and sum is exact and the one division is correctly
// rounded, in Python and in C++.
//
// Source: https://github.com/Lightning-AI/torchmetrics/issues/3510
#include <cmath>

#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Edges { RightOpenPhantom, LeftOpen, Clamped };

Result<Value> calibration_error(const std::vector<double>& confidences, args::IntListView correct, std::int64_t n_bins,
                                Edges edges) {
  if (n_bins < 0 || n_bins > 1000000) return input_error("n_bins out of range for this reproducer");
  auto slots = edges == Edges::RightOpenPhantom ? n_bins + 1 : n_bins;
  std::vector<double> conf_sum(static_cast<std::size_t>(slots), 0.0);
  std::vector<std::int64_t> hits(static_cast<std::size_t>(slots), 0);
  const std::size_t pairs = std::min(confidences.size(), correct.size());
  for (std::size_t i = 0; i < pairs; ++i) {
    const double scaled = confidences[i] * static_cast<double>(n_bins);
    if (!std::isfinite(scaled)) return input_error("ValueError: cannot convert float to integer");
    std::int64_t b = 0;
    if (edges == Edges::LeftOpen) {
      b = static_cast<std::int64_t>(std::ceil(scaled)) - 1;
      if (b < 0) continue;
    } else {
      b = static_cast<std::int64_t>(std::trunc(scaled));
      if (edges == Edges::Clamped && b > n_bins - 1) b = n_bins - 1;
    }
    if (b < 0) b += slots;  // Python's negative index
    if (b < 0 || b >= slots) return input_error("IndexError: list index out of range");
    conf_sum[static_cast<std::size_t>(b)] += confidences[i];
    FAILMAP_TRY_ASSIGN(auto h, checked_add(hits[static_cast<std::size_t>(b)], correct[i]));
    hits[static_cast<std::size_t>(b)] = h;
  }
  double total = 0.0;
  for (std::size_t b = 0; b < conf_sum.size(); ++b) total += std::fabs(conf_sum[b] - static_cast<double>(hits[b]));
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(confidences.size())));
  return Value::floating(out);
}

Result<Value> broken(const std::vector<double>& confidences, args::IntListView correct, std::int64_t n_bins) {
  return calibration_error(confidences, correct, n_bins, Edges::RightOpenPhantom);
}

Result<Value> unsuccessful(const std::vector<double>& confidences, args::IntListView correct, std::int64_t n_bins) {
  return calibration_error(confidences, correct, n_bins, Edges::LeftOpen);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& confidences, args::IntListView correct, std::int64_t n_bins) {
  return calibration_error(confidences, correct, n_bins, Edges::Clamped);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_ece_last_bin_edge() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "ece-last-bin-edge",
      .title = "Calibration error with confidence 1.0 in a bin of its own",
      .source = "https://github.com/Lightning-AI/torchmetrics/issues/3510",
      .evaluation_group = {"calibration-binning"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A confidence of exactly 1.0 is scored in a calibration bin of its own",
              .summary = "A confidence of exactly 1.0 is scored in a calibration bin of its own.",
              .root_cause = "The bin index is floor(confidence * n_bins) without a clamp, so a confidence of 1.0 "
                            "gets index n_bins, an extra bin after the last one.",
              .failure = "The broken path scores the 1.0 confidences apart from the rest of the last bin, so their "
                         "errors no longer offset the others' and the calibration error grows.",
              .unsuccessful_approach = "Bins open on the left, ceil(confidence * n_bins) - 1, put 1.0 in the last "
                                       "bin but move inner-edge confidences a bin down and drop confidence 0.0.",
              .contract = "Return the expected calibration error: bin index min(floor(c * n_bins), n_bins - 1); per "
                          "bin the sum of confidences and the number correct; the sum over bins of |confidence sum - "
                          "number correct|, divided once by the number of samples.",
              .why_it_matters = "Saturated confidences are common in overconfident models, exactly the models a "
                                "calibration metric is meant to flag; binning them apart misstates the error.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(confidences, correct, n_bins):\n"
               "    conf_sum = [0.0] * (n_bins + 1)\n"
               "    hits = [0] * (n_bins + 1)\n"
               "    for c, ok in zip(confidences, correct):\n"
               "        b = int(c * n_bins)\n"
               "        conf_sum[b] += c\n"
               "        hits[b] += ok\n"
               "    total = 0.0\n"
               "    for b in range(n_bins + 1):\n"
               "        total += abs(conf_sum[b] - hits[b])\n"
               "    return total / len(confidences)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "import math\n"
               "def solve(confidences, correct, n_bins):\n"
               "    conf_sum = [0.0] * n_bins\n"
               "    hits = [0] * n_bins\n"
               "    for c, ok in zip(confidences, correct):\n"
               "        b = math.ceil(c * n_bins) - 1\n"
               "        if b < 0:\n"
               "            continue\n"
               "        conf_sum[b] += c\n"
               "        hits[b] += ok\n"
               "    total = 0.0\n"
               "    for b in range(n_bins):\n"
               "        total += abs(conf_sum[b] - hits[b])\n"
               "    return total / len(confidences)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(confidences, correct, n_bins):\n"
               "    conf_sum = [0.0] * n_bins\n"
               "    hits = [0] * n_bins\n"
               "    for c, ok in zip(confidences, correct):\n"
               "        b = min(int(c * n_bins), n_bins - 1)\n"
               "        conf_sum[b] += c\n"
               "        hits[b] += ok\n"
               "    total = 0.0\n"
               "    for b in range(n_bins):\n"
               "        total += abs(conf_sum[b] - hits[b])\n"
               "    return total / len(confidences)\n"),
          }},
      .fixtures =
          {
              {"confidence 1.0 with misses in the last bin", "[0.875]*N+[1.0]*N+[0.125],[1]*N+[0]*N+[0],4",
               "(7*N+1)/(16*N+8)"},
              {"confidence 1.0, all of it right", "[0.875]*N+[1.0]*N+[0.125],[1]*N+[1]*N+[0],4", "(N+1)/(16*N+8)"},
              {"a confidence on an inner bin edge", "[0.25]*N+[0.5]*N+[0.75],[1]*N+[0]*N+[1],2", "(5*N-1)/(8*N+4)"},
              {"confidence 0.0", "[0.0]*N+[0.25]*N+[0.75],[1]*N+[0]*N+[1],2", "(3*N+1)/(8*N+4)"},
              {"two bins", "[0.25]*N+[0.75]*N+[1.0],[1]*N+[0]*N+[1],2", "(3*N)/(4*N+2)"},
              {"one bin", "[0.25]*N+[0.75]*N+[1.0],[1]*N+[0]*N+[1],1", "0.0"},
              {"a confidence on an edge next to 1.0", "[0.75]*N+[1.0]*N+[0.125],[1]*N+[0]*N+[0],4",
               "(6*N+1)/(16*N+8)"},
          },
  };
  return k_mechanism;
}
