// Global norm clipping
// ====================
//
// The failure. Gradient clipping by norm is defined over the whole model:
// concatenate every parameter's gradient, take one L2 norm, and if it exceeds
// max_norm scale every value by max_norm / norm. The broken path clips each
// tensor by its own norm. That changes the direction of the update (tensors
// are scaled by different factors) and lets the total norm exceed the limit
// by up to sqrt(number of tensors): gradients [[3, 4], [12]] with max_norm 1
// come out as [[0.6, 0.8], [1.0]], norm sqrt(2), where the contract gives
// [[3, 4], [12]] / 13. The same bug appears when each pipeline or tensor
// parallel rank clips its own shard without reducing the norm first.
//
// Why the unsuccessful fix fails. Computing one global norm fixes the
// direction, but the rewrite multiplies by max_norm / norm unconditionally,
// dropping the min(1, .) clamp. Clipping turns into normalisation: any
// gradient smaller than max_norm is inflated up to it, so late-training
// updates are amplified instead of left alone. It agrees with the contract
// exactly when the gradient is at or above the limit.
//
// Why the repair holds. One sum of squares over all tensors, one sqrt, one
// scale = min(1.0, max_norm / norm), applied to every value: the direction is
// preserved and the norm is capped but never raised. An all-zero gradient has
// norm 0 and is left as it is rather than divided by zero. The C++ computes
// the same sums in the same order; sqrt is correctly rounded in both.
//
// transformers PR 614 replaced clipping per parameter group with one global norm.
// Source: https://github.com/huggingface/transformers/pull/614
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Grads = std::vector<std::vector<double>>;

// Python min(1.0, x): 1.0 unless x < 1.0.
double min_one(double x) { return x < 1.0 ? x : 1.0; }

// `max_norm / norm if norm > 0 else 1.0`, clamped by min(1.0, .) when asked.
enum class Clamp { No, AtOne };

double scale_for(double max_norm, double norm, Clamp clamp) {
  if (!(norm > 0)) return 1.0;
  const double ratio = max_norm / norm;
  return clamp == Clamp::AtOne ? min_one(ratio) : ratio;
}

Value scaled(const Grads& grads, const std::vector<double>& scales) {
  Value::List out;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    std::vector<double> row;
    for (double g : grads[i]) row.push_back(g * scales[i]);
    out.push_back(args::float_list_value(row));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(const Grads& grads, double max_norm) {
  std::vector<double> scales;
  for (const std::vector<double>& tensor : grads) {
    double total = 0.0;
    for (double g : tensor) total += g * g;
    scales.push_back(scale_for(max_norm, std::sqrt(total), Clamp::AtOne));
  }
  return scaled(grads, scales);
}

Result<Value> global(const Grads& grads, double max_norm, Clamp clamp) {
  double total = 0.0;
  for (const std::vector<double>& tensor : grads)
    for (double g : tensor) total += g * g;
  const double scale = scale_for(max_norm, std::sqrt(total), clamp);
  return scaled(grads, std::vector<double>(grads.size(), scale));
}

Result<Value> unsuccessful(const Grads& grads, double max_norm) { return global(grads, max_norm, Clamp::No); }
#if FAILMAP_REPAIRS
Result<Value> repaired(const Grads& grads, double max_norm) { return global(grads, max_norm, Clamp::AtOne); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_global_norm_clipping() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "global-norm-clipping",
      .title = "Global norm clipping",
      .source = "https://github.com/huggingface/transformers/pull/614",
      .evaluation_group = {"gradient-clipping"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Gradients are clipped tensor by tensor instead of by the global norm",
              .summary = "Gradients are clipped tensor by tensor instead of by the global norm.",
              .root_cause = "Each tensor's gradient is scaled by its own norm, so tensors get different factors and "
                            "the combined norm is never measured.",
              .failure = "The broken path clips every tensor separately; the update changes direction and its total "
                         "norm can exceed the limit.",
              .unsuccessful_approach = "Scaling every value by max_norm / global_norm without the min(1, .) clamp "
                                       "inflates gradients that were already below the limit.",
              .contract = "Compute one L2 norm over all tensors and scale every value by min(1, max_norm / "
                          "global_norm), leaving an all-zero gradient unchanged.",
              .why_it_matters = "Clipping must cap the update without changing its direction or amplifying small "
                                "gradients, or stability fixes silently alter the optimisation.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(grads, max_norm):\n"
               "    import math\n"
               "    clipped = []\n"
               "    for tensor in grads:\n"
               "        total = 0.0\n"
               "        for g in tensor:\n"
               "            total += g * g\n"
               "        norm = math.sqrt(total)\n"
               "        scale = min(1.0, max_norm / norm) if norm > 0 else 1.0\n"
               "        clipped.append([g * scale for g in tensor])\n"
               "    return clipped\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(grads, max_norm):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for tensor in grads:\n"
               "        for g in tensor:\n"
               "            total += g * g\n"
               "    norm = math.sqrt(total)\n"
               "    scale = max_norm / norm if norm > 0 else 1.0\n"
               "    return [[g * scale for g in tensor] for tensor in grads]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(grads, max_norm):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for tensor in grads:\n"
               "        for g in tensor:\n"
               "            total += g * g\n"
               "    norm = math.sqrt(total)\n"
               "    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0\n"
               "    return [[g * scale for g in tensor] for tensor in grads]\n"),
          }},
      .fixtures =
          {
              {"mixed tensor sizes", "[[3.0,4.0],[12.0]],1.0",
               "[[0.23076923076923078,0.3076923076923077],[0.9230769230769231]]"},
              {"small gradient untouched", "[[3.0,4.0]],10.0*N", "[[3.0,4.0]]"},
              {"equal tensors over the limit", "[[2.0*N,2.0*N],[2.0*N,2.0*N]],1.0*N", "[[0.5*N,0.5*N],[0.5*N,0.5*N]]"},
              {"zero gradient", "[[0.0,0.0],[0.0]],1.0*N", "[[0.0,0.0],[0.0]]"},
              {"under the limit jointly", "[[3.0*N,4.0*N],[0.0]],10.0*N", "[[3.0*N,4.0*N],[0.0]]"},
              {"exactly at the limit", "[[3.0*N,4.0*N]],5.0*N", "[[3.0*N,4.0*N]]"},
              {"each under, jointly over", "[[6.0*N],[8.0*N]],5.0*N", "[[3.0*N],[4.0*N]]"},
          },
  };
  return k_mechanism;
}
