// Label smoothing ignore index
// ============================
//
// The failure. A label-smoothed cross entropy mixes two terms per position:
// (1 - eps) times the negative log-likelihood of the target and eps times
// the smoothing term (the mean negative log-probability over the classes).
// Padded positions carry the target ignore_index (-100) and must drop out of
// both terms and of the count. The broken path has no ignore_index at all:
// every position, padding included, adds both terms and counts in the mean,
// so the loss depends on how much padding the collator added.
//
// Why the unsuccessful fix fails. Passing ignore_index to
// CrossEntropyLoss(label_smoothing=eps) is the natural fix, and before
// PyTorch issue 73205 was fixed the built-in honoured ignore_index only in
// the likelihood term: the uniform (smoothing) part still summed over the
// ignored positions while the mean divided by the non-ignored count. It is
// right whenever eps is 0 or the ignored positions' smoothing terms are 0,
// and wrong by eps times their sum over the kept count otherwise.
//
// Why the repair holds. One pass keeps a position only if its target is not
// -100, adding its likelihood and its smoothing term to two sums and 1 to the
// count; the loss is ((1 - eps) * nll_sum + eps * smooth_sum) / count, the
// mean over real tokens of the smoothed per-token loss. Python's zip stops at
// the shortest list; the C++ does the same, with the same additions in the
// same order.
//
// Source: https://github.com/pytorch/pytorch/issues/73205
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

constexpr std::int64_t k_ignore_index = -100;

using Floats = std::vector<double>;

enum class Masking { None, LikelihoodOnly, Both };

Result<Value> smoothed_loss(const Floats& nll, const Floats& smooth, args::IntListView targets, double eps,
                            Masking masking) {
  const std::size_t n = std::min({nll.size(), smooth.size(), targets.size()});
  double nll_total = 0.0;
  double smooth_total = 0.0;
  std::int64_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool ignored = targets[i] == k_ignore_index;
    if (masking == Masking::LikelihoodOnly) smooth_total += smooth[i];
    if (masking != Masking::None && ignored) continue;
    nll_total += nll[i];
    if (masking != Masking::LikelihoodOnly) smooth_total += smooth[i];
    ++kept;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide((1.0 - eps) * nll_total + eps * smooth_total, static_cast<double>(kept)));
  return Value::floating(out);
}

Result<Value> broken(const Floats& nll, const Floats& smooth, args::IntListView targets, double eps) {
  return smoothed_loss(nll, smooth, targets, eps, Masking::None);
}
Result<Value> unsuccessful(const Floats& nll, const Floats& smooth, args::IntListView targets, double eps) {
  return smoothed_loss(nll, smooth, targets, eps, Masking::LikelihoodOnly);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const Floats& nll, const Floats& smooth, args::IntListView targets, double eps) {
  return smoothed_loss(nll, smooth, targets, eps, Masking::Both);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_label_smoothing_ignore_index() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "label-smoothing-ignore-index",
      .title = "Label smoothing ignore index",
      .source = "https://github.com/pytorch/pytorch/issues/73205",
      .evaluation_group = {"cross-entropy-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Ignored positions still feed the label-smoothing term",
              .summary = "Ignored positions still feed the label-smoothing term.",
              .root_cause = "Positions whose target is ignore_index must leave both terms of the smoothed loss and "
                            "its denominator, but the smoothing term is summed over every position.",
              .failure = "The broken path honours no ignore_index: padding adds both terms and counts in the mean.",
              .unsuccessful_approach = "Masking ignore_index in the likelihood term only, as CrossEntropyLoss with "
                                       "label_smoothing once did, still adds the padding's smoothing term.",
              .contract = "Over positions whose target is not -100, return ((1 - eps) * sum of nll + eps * sum of "
                          "smooth) divided by the number of such positions.",
              .why_it_matters = "The smoothing term of padding is large and constant, so the error grows with the "
                                "padding ratio and shifts the optimum toward uniform predictions.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(nll, smooth, targets, eps):\n"
               "    nll_total = 0.0\n"
               "    smooth_total = 0.0\n"
               "    count = 0\n"
               "    for n, s, t in zip(nll, smooth, targets):\n"
               "        nll_total += n\n"
               "        smooth_total += s\n"
               "        count += 1\n"
               "    return ((1.0 - eps) * nll_total + eps * smooth_total) / count\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(nll, smooth, targets, eps):\n"
               "    nll_total = 0.0\n"
               "    smooth_total = 0.0\n"
               "    kept = 0\n"
               "    for n, s, t in zip(nll, smooth, targets):\n"
               "        smooth_total += s\n"
               "        if t != -100:\n"
               "            nll_total += n\n"
               "            kept += 1\n"
               "    return ((1.0 - eps) * nll_total + eps * smooth_total) / kept\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(nll, smooth, targets, eps):\n"
               "    nll_total = 0.0\n"
               "    smooth_total = 0.0\n"
               "    kept = 0\n"
               "    for n, s, t in zip(nll, smooth, targets):\n"
               "        if t != -100:\n"
               "            nll_total += n\n"
               "            smooth_total += s\n"
               "            kept += 1\n"
               "    return ((1.0 - eps) * nll_total + eps * smooth_total) / kept\n"),
          }},
      .fixtures =
          {
              {"padding with smoothing", "[2.0*N,4.0,1.0],[4.0,8.0*N,2.0],[1,-100,3],0.5",
               "(0.5*(2.0*N+1.0)+0.5*6.0)/2"},
              {"no smoothing", "[3.0*N,5.0,1.0],[1.0,2.0,3.0],[0,-100,2],0.0", "(3.0*N+1.0)/2"},
              {"no ignored positions", "[1.0*N,2.0],[3.0,5.0],[4,7],0.25", "(0.75*(1.0*N+2.0)+0.25*8.0)/2"},
              {"ignored position with zero losses", "[2.0,6.0*N,0.0],[4.0,2.0,0.0],[3,1,-100],0.5",
               "(0.5*(2.0+6.0*N)+0.5*6.0)/2"},
              {"smoothing only", "[1.0,9.0,3.0*N],[2.0,6.0,4.0*N],[5,-100,6],1.0", "(2.0+4.0*N)/2"},
              {"one kept position", "[5.0,5.0,1.0*N],[2.0*N,2.0,3.0],[-100,-100,7],0.25",
               "(0.75*(1.0*N)+0.25*3.0)/1"},
              {"single token", "[2.0*N],[4.0],[0],0.5", "(0.5*(2.0*N)+0.5*4.0)/1"},
          },
  };
  return k_mechanism;
}
