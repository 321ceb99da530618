// AdamW decoupled decay
// =====================
//
// The failure. Adam divides each gradient by the root of its second moment,
// so an L2 penalty added to the gradient (g + weight_decay * p, what
// torch.optim.Adam's weight_decay does) is normalised away with it: a
// parameter with a large gradient is barely decayed, and one with no
// gradient at all is pushed by a full learning-rate step toward zero. AdamW
// decouples the two: the parameter is first shrunk by p * (1 - lr *
// weight_decay), then the Adam step is taken on the gradient alone. The
// broken path is Adam with L2 in the gradient.
//
// Why the unsuccessful fix fails. The first decoupled version proposed in
// PyTorch PR 4429 applied p.data.add_(-weight_decay, p.data): decoupled, but
// not multiplied by the learning rate, as a reviewer pointed out ("This new
// formulation is not multiplying it by the learning rate"). The decay then
// ignores the schedule: with lr 0.125 and weight_decay 0.5 a weight is
// halved every step instead of shrunk by 6.25%. It agrees with AdamW exactly
// when lr is 1.0 or weight_decay is 0.
//
// Why the repair holds. Decay and gradient step are separate and both
// scaled by lr, as torch.optim.AdamW does: p <- p * (1 - lr * wd), then
// p <- p - lr * m_hat / (sqrt(v_hat) + eps). The model is one step from a
// fresh state, where the bias-corrected moments are g and g * g exactly,
// with eps = 1e-8; the C++ does the same multiplications, sqrt and
// divisions in the same order.
//
// Source: https://github.com/pytorch/pytorch/pull/4429
#include <algorithm>
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Floats = std::vector<double>;

enum class Decay { L2InGradient, DecoupledWithoutLr, Decoupled };

Result<Value> adam_step(const Floats& params, const Floats& grads, double lr, double weight_decay, Decay decay) {
  std::vector<double> out;
  const std::size_t n = std::min(params.size(), grads.size());
  for (std::size_t i = 0; i < n; ++i) {
    double p = params[i];
    double g = grads[i];
    if (decay == Decay::L2InGradient) g = g + weight_decay * p;
    if (decay == Decay::DecoupledWithoutLr) p = p * (1.0 - weight_decay);
    if (decay == Decay::Decoupled) p = p * (1.0 - lr * weight_decay);
    const double m = g;
    const double v = g * g;
    FAILMAP_TRY_ASSIGN(auto step, args::divide(lr * m, std::sqrt(v) + 1e-8));
    out.push_back(p - step);
  }
  return args::float_list_value(out);
}

Result<Value> broken(const Floats& params, const Floats& grads, double lr, double weight_decay) {
  return adam_step(params, grads, lr, weight_decay, Decay::L2InGradient);
}
Result<Value> unsuccessful(const Floats& params, const Floats& grads, double lr, double weight_decay) {
  return adam_step(params, grads, lr, weight_decay, Decay::DecoupledWithoutLr);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const Floats& params, const Floats& grads, double lr, double weight_decay) {
  return adam_step(params, grads, lr, weight_decay, Decay::Decoupled);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_adamw_decoupled_decay() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "adamw-decoupled-decay",
      .title = "AdamW decoupled decay",
      .source = "https://github.com/pytorch/pytorch/pull/4429",
      .evaluation_group = {"adam-update"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Weight decay is added to the gradient that Adam normalises",
              .summary = "Weight decay is added to the gradient that Adam normalises.",
              .root_cause = "An L2 term added to the gradient passes through Adam's division by the root of the "
                            "second moment, so the decay a parameter gets depends on its gradient.",
              .failure = "The broken path adds weight_decay * p to the gradient before the Adam step: parameters "
                         "with large gradients are hardly decayed, those without gradient are decayed by lr.",
              .unsuccessful_approach = "Decoupling the decay as p - weight_decay * p, without the learning rate, "
                                       "decays at a rate the schedule no longer controls.",
              .contract = "For one Adam step from a fresh state, return p * (1 - lr * weight_decay) - lr * g / "
                          "(sqrt(g * g) + 1e-8) for each parameter p and gradient g.",
              .why_it_matters = "With L2 inside Adam the regularisation strength silently varies per parameter "
                                "and with gradient scale, so tuned weight decay does not transfer.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(params, grads, lr, weight_decay):\n"
               "    import math\n"
               "    out = []\n"
               "    for p, g in zip(params, grads):\n"
               "        g = g + weight_decay * p\n"
               "        m = g\n"
               "        v = g * g\n"
               "        out.append(p - lr * m / (math.sqrt(v) + 1e-8))\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(params, grads, lr, weight_decay):\n"
               "    import math\n"
               "    out = []\n"
               "    for p, g in zip(params, grads):\n"
               "        p = p * (1.0 - weight_decay)\n"
               "        m = g\n"
               "        v = g * g\n"
               "        out.append(p - lr * m / (math.sqrt(v) + 1e-8))\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(params, grads, lr, weight_decay):\n"
               "    import math\n"
               "    out = []\n"
               "    for p, g in zip(params, grads):\n"
               "        p = p * (1.0 - lr * weight_decay)\n"
               "        m = g\n"
               "        v = g * g\n"
               "        out.append(p - lr * m / (math.sqrt(v) + 1e-8))\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"unit learning rate", "[4.0*N],[2.0],1.0,0.25", "[(4.0*N)*(1.0-1.0*0.25)-1.0*2.0/(2.0+1e-8)]"},
              {"zero gradient", "[2.0*N],[0.0],0.5,0.5", "[(2.0*N)*(1.0-0.5*0.5)]"},
              {"no weight decay", "[3.0*N],[1.0],0.5,0.0", "[(3.0*N)*(1.0-0.5*0.0)-0.5*1.0/(1.0+1e-8)]"},
              {"small learning rate", "[8.0],[4.0*N],0.125,0.5",
               "[8.0*(1.0-0.125*0.5)-0.125*(4.0*N)/(4.0*N+1e-8)]"},
              {"negative gradient", "[1.0*N],[-2.0],1.0,0.5", "[(1.0*N)*(1.0-1.0*0.5)-1.0*(-2.0)/(2.0+1e-8)]"},
              {"two parameters", "[2.0*N,4.0],[1.0,-1.0],0.5,0.25",
               "[(2.0*N)*(1.0-0.5*0.25)-0.5*1.0/(1.0+1e-8),4.0*(1.0-0.5*0.25)-0.5*(-1.0)/(1.0+1e-8)]"},
              {"zero parameter", "[0.0],[3.0*N],0.5,0.5", "[0.0*(1.0-0.5*0.5)-0.5*(3.0*N)/(3.0*N+1e-8)]"},
          },
  };
  return k_mechanism;
}
