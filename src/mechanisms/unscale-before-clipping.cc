// Unscale before clipping
// =======================
//
// The failure. Mixed-precision training multiplies the loss by a scale
// (torch.cuda.amp.GradScaler starts at 2**16 = 65536.0 and halves or doubles
// it as overflows come and go), so backward() leaves gradients multiplied by
// that scale. Clipping by norm has to see the true gradients. The broken path
// clips the scaled gradients against max_norm and only then divides by the
// scale, as scaler.step() does: the measured norm is 65536 times too large,
// so nearly every step is clipped and the applied update is the true one
// shrunk by the scale. Lightning's mixed-precision plugin did exactly this
// (unscale was called after gradient clipping, fixed by moving the unscale
// hook), and so did pytorch/examples' minGPT trainer and Pytorch-UNet.
//
// Why the unsuccessful fix fails. Instead of unscaling first, the threshold
// is scaled: clip_grad_norm_(params, max_norm * LOSS_SCALE), a fix proposed
// in suvojit-0x55aa/mixed-precision-pytorch issue 1, here with the constant
// 65536.0. It is exact while the scale is the one the constant assumed, but
// the dynamic scaler moves the scale (EveryDream2trainer PR 175: "because
// gradient scaling is dynamic, it's likely the value you pick won't be
// correct"): after a backoff to 1024 gradients far over the limit pass
// unclipped, after growth to 131072 gradients under the limit are clipped,
// and with scaling disabled (scale 1.0) clipping never happens at all.
//
// Why the repair holds. Divide every gradient by the scale in effect for
// this step (scaler.unscale_(optimizer)), then take one global norm and scale
// by min(1, max_norm / norm) as clip_grad_norm_ does: the clipping decision
// is made on the gradients the optimizer will apply, whatever the scale. The
// C++ performs the same divisions, sums and sqrt in the same order.
//
// Source: https://github.com/Lightning-AI/pytorch-lightning/pull/9606
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  const std::vector<double>& grads;
  double scale;
  double max_norm;
};

// Python `min(1.0, limit / norm) if norm > 0 else 1.0` over the gradients' L2 norm.
Result<double> clip_coefficient(const std::vector<double>& grads, double limit) {
  double total = 0.0;
  for (double g : grads) total += g * g;
  const double norm = std::sqrt(total);
  if (!(norm > 0)) return 1.0;
  FAILMAP_TRY_ASSIGN(auto ratio, args::divide(limit, norm));
  return ratio < 1.0 ? ratio : 1.0;
}

// Clips the scaled gradients against `limit`, then divides by the scale.
Result<Value> clip_then_unscale(const Input& in, double limit_factor) {
  FAILMAP_TRY_ASSIGN(auto coef, clip_coefficient(in.grads, in.max_norm * limit_factor));
  std::vector<double> out;
  for (double g : in.grads) {
    FAILMAP_TRY_ASSIGN(auto v, args::divide(g * coef, in.scale));
    out.push_back(v);
  }
  return args::float_list_value(out);
}

Result<Value> broken(const std::vector<double>& grads, double scale, double max_norm) {
  return clip_then_unscale({grads, scale, max_norm}, 1.0);
}
Result<Value> unsuccessful(const std::vector<double>& grads, double scale, double max_norm) {
  return clip_then_unscale({grads, scale, max_norm}, 65536.0);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& grads, double scale, double max_norm) {
  std::vector<double> unscaled;
  for (double g : grads) {
    FAILMAP_TRY_ASSIGN(auto v, args::divide(g, scale));
    unscaled.push_back(v);
  }
  FAILMAP_TRY_ASSIGN(auto coef, clip_coefficient(unscaled, max_norm));
  for (double& g : unscaled) g = g * coef;
  return args::float_list_value(unscaled);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_unscale_before_clipping() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "unscale-before-clipping",
      .title = "Unscale before clipping",
      .source = "https://github.com/Lightning-AI/pytorch-lightning/pull/9606",
      .evaluation_group = {"gradient-clipping"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // The "no loss scaling" check needs the true norm 5 * N below the
      // unsuccessful fix's 65536.0 threshold.
      .parameter_maximum = {10000},
      .prose =
          {
              .case_title = "Loss-scaled gradients are clipped before they are unscaled",
              .summary = "Loss-scaled gradients are clipped before they are unscaled.",
              .root_cause = "Gradient clipping runs on gradients still multiplied by the mixed-precision loss "
                            "scale, so the norm it measures is the true norm times the scale.",
              .failure = "The broken path clips the scaled gradients against max_norm and unscales afterwards: "
                         "almost every step is clipped and the applied update shrinks by the scale.",
              .unsuccessful_approach = "Clipping the scaled gradients against max_norm * 65536.0 assumes the "
                                       "initial loss scale, which the dynamic scaler halves and doubles.",
              .contract = "Divide every gradient by the current scale first, then scale them all by min(1, "
                          "max_norm / norm) of their global L2 norm (an all-zero gradient is left unchanged).",
              .why_it_matters = "Clipping on scaled gradients silently turns a stability guard into a learning-rate "
                                "cut that changes whenever the loss scale does.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(grads, scale, max_norm):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for g in grads:\n"
               "        total += g * g\n"
               "    norm = math.sqrt(total)\n"
               "    coef = min(1.0, max_norm / norm) if norm > 0 else 1.0\n"
               "    return [g * coef / scale for g in grads]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(grads, scale, max_norm):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for g in grads:\n"
               "        total += g * g\n"
               "    norm = math.sqrt(total)\n"
               "    limit = max_norm * 65536.0\n"
               "    coef = min(1.0, limit / norm) if norm > 0 else 1.0\n"
               "    return [g * coef / scale for g in grads]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(grads, scale, max_norm):\n"
               "    import math\n"
               "    unscaled = [g / scale for g in grads]\n"
               "    total = 0.0\n"
               "    for g in unscaled:\n"
               "        total += g * g\n"
               "    norm = math.sqrt(total)\n"
               "    coef = min(1.0, max_norm / norm) if norm > 0 else 1.0\n"
               "    return [g * coef for g in unscaled]\n"),
          }},
      .fixtures =
          {
              {"over the limit at the initial scale", "[3.0*N*65536.0,4.0*N*65536.0],65536.0,2.5*N", "[1.5*N,2.0*N]"},
              {"under the limit after growth", "[3.0*N*131072.0,4.0*N*131072.0],131072.0,6.0*N", "[3.0*N,4.0*N]"},
              {"over the limit after backoff", "[3.0*N*1024.0,4.0*N*1024.0],1024.0,2.5*N", "[1.5*N,2.0*N]"},
              {"no loss scaling", "[3.0*N,4.0*N],1.0,2.5*N", "[1.5*N,2.0*N]"},
              {"zero gradient", "[0.0,0.0],65536.0,1.0*N", "[0.0,0.0]"},
              {"under the limit at the initial scale", "[3.0*65536.0,4.0*65536.0],65536.0,10.0*N", "[3.0,4.0]"},
              {"single value at half the initial scale", "[2.0*N*32768.0],32768.0,1.0*N", "[1.0*N]"},
      },
  };
  return k_mechanism;
}
