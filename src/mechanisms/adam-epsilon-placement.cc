// Adam epsilon placement
// ======================
//
// The failure. Adam's update is lr * m_hat / (sqrt(v_hat) + eps), with
// m_hat = m / (1 - beta1^t) and v_hat = v / (1 - beta2^t) (Kingma and Ba,
// Algorithm 1): eps is added after the square root of the bias-corrected
// second moment. Keras issue 17391 ("Adam (and other adaptive algorithms)
// use epsilon the wrong way") describes the variant modelled as broken: eps
// inside the root, sqrt(v_hat + eps). With the default 1e-7 or 1e-8 it acts
// like an epsilon of about 1e-4, which changes every update whose second
// moment is small and makes hyperparameters non-transferable between
// frameworks.
//
// Why the unsuccessful fix fails. Moving eps outside the root but using the
// paper's "more efficient" form, lr_t = lr * sqrt(1 - beta2^t) / (1 -
// beta1^t) and update lr_t * m / (sqrt(v) + eps), is what TensorFlow issue
// 9047 reports: eps is then effectively eps * sqrt(1 - beta2^t), far
// smaller than eps in the first steps, exactly when v is small. It agrees
// with the contract when eps is 0 or once beta2^t has vanished.
//
// Why the repair holds. Bias-correct both moments first, then take the root
// of v_hat and add eps, as torch.optim.Adam documents. beta^t is computed by
// repeated multiplication, not pow(), so every libm gives the same bits; the
// C++ performs the same multiplications, divisions and sqrt in the same
// order.
//
// Source: https://github.com/tensorflow/tensorflow/issues/9047
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Placement { InsideRoot, ScaledByCorrection, AfterCorrectedRoot };

Result<Value> adam_update(double m, double v, std::int64_t t, double lr, double beta1, double beta2, double eps,
                          Placement placement) {
  double power1 = 1.0;
  double power2 = 1.0;
  for (std::int64_t k = 0; k < t; ++k) {
    power1 = power1 * beta1;
    power2 = power2 * beta2;
  }
  if (placement == Placement::ScaledByCorrection) {
    const double c1 = 1.0 - power1;
    const double c2 = 1.0 - power2;
    FAILMAP_TRY_ASSIGN(auto lr_t, args::divide(lr * std::sqrt(c2), c1));
    FAILMAP_TRY_ASSIGN(auto out, args::divide(lr_t * m, std::sqrt(v) + eps));
    return Value::floating(out);
  }
  FAILMAP_TRY_ASSIGN(auto m_hat, args::divide(m, 1.0 - power1));
  FAILMAP_TRY_ASSIGN(auto v_hat, args::divide(v, 1.0 - power2));
  const double denominator =
      placement == Placement::InsideRoot ? std::sqrt(v_hat + eps) : std::sqrt(v_hat) + eps;
  FAILMAP_TRY_ASSIGN(auto out, args::divide(lr * m_hat, denominator));
  return Value::floating(out);
}

Result<Value> broken(double m, double v, std::int64_t t, double lr, double beta1, double beta2, double eps) {
  return adam_update(m, v, t, lr, beta1, beta2, eps, Placement::InsideRoot);
}
Result<Value> unsuccessful(double m, double v, std::int64_t t, double lr, double beta1, double beta2, double eps) {
  return adam_update(m, v, t, lr, beta1, beta2, eps, Placement::ScaledByCorrection);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double m, double v, std::int64_t t, double lr, double beta1, double beta2, double eps) {
  return adam_update(m, v, t, lr, beta1, beta2, eps, Placement::AfterCorrectedRoot);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_adam_epsilon_placement() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "adam-epsilon-placement",
      .title = "Adam epsilon placement",
      .source = "https://github.com/tensorflow/tensorflow/issues/9047",
      .evaluation_group = {"adam-update"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Adam's epsilon is added in the wrong place",
              .summary = "Adam's epsilon is added in the wrong place.",
              .root_cause = "The update must add eps to the root of the bias-corrected second moment; adding it "
                            "inside the root or before the correction changes its effective size.",
              .failure = "The broken path divides by sqrt(v_hat + eps), which acts like a much larger epsilon "
                         "whenever the second moment is small.",
              .unsuccessful_approach = "Folding the bias corrections into the step size and adding eps to "
                                       "sqrt(v) scales eps by sqrt(1 - beta2^t), shrinking it in early steps.",
              .contract = "Return lr * m_hat / (sqrt(v_hat) + eps) with m_hat = m / (1 - beta1^t) and v_hat = v / "
                          "(1 - beta2^t), the powers computed by repeated multiplication.",
              .why_it_matters = "Epsilon sets the largest step a parameter with a tiny second moment can take, so "
                                "its placement decides early-training stability and cross-framework parity.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(m, v, t, lr, beta1, beta2, eps):\n"
               "    import math\n"
               "    power1 = 1.0\n"
               "    power2 = 1.0\n"
               "    for _ in range(t):\n"
               "        power1 = power1 * beta1\n"
               "        power2 = power2 * beta2\n"
               "    m_hat = m / (1.0 - power1)\n"
               "    v_hat = v / (1.0 - power2)\n"
               "    return lr * m_hat / math.sqrt(v_hat + eps)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(m, v, t, lr, beta1, beta2, eps):\n"
               "    import math\n"
               "    power1 = 1.0\n"
               "    power2 = 1.0\n"
               "    for _ in range(t):\n"
               "        power1 = power1 * beta1\n"
               "        power2 = power2 * beta2\n"
               "    c1 = 1.0 - power1\n"
               "    c2 = 1.0 - power2\n"
               "    lr_t = lr * math.sqrt(c2) / c1\n"
               "    return lr_t * m / (math.sqrt(v) + eps)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(m, v, t, lr, beta1, beta2, eps):\n"
               "    import math\n"
               "    power1 = 1.0\n"
               "    power2 = 1.0\n"
               "    for _ in range(t):\n"
               "        power1 = power1 * beta1\n"
               "        power2 = power2 * beta2\n"
               "    m_hat = m / (1.0 - power1)\n"
               "    v_hat = v / (1.0 - power2)\n"
               "    return lr * m_hat / (math.sqrt(v_hat) + eps)\n"),
          }},
      .fixtures =
          {
              {"no epsilon", "1.0*N,4.0,1,0.5,0.5,0.75,0.0", "0.25*N"},
              {"no second-moment correction", "2.0*N,4.0,1,1.0,0.5,0.0,0.25", "1.0*(2.0*N/0.5)/(2.0+0.25)"},
              {"first step with epsilon", "1.0*N,1.0,1,1.0,0.5,0.75,0.5", "1.0*(1.0*N/0.5)/(2.0+0.5)"},
              {"zero moments", "0.0,0.0,N,0.5,0.9,0.999,1e-8", "0.0"},
              {"late step", "3.0*N,9.0,2000,1.0,0.5,0.5,1.0", "1.0*(3.0*N/1.0)/(3.0+1.0)"},
              {"epsilon dominates", "2.0,1.0*N*N,1,1.0,0.5,0.75,1.0", "1.0*(2.0/0.5)/(2.0*N+1.0)"},
              {"no bias correction", "1.0*N,1.0,3,0.5,0.0,0.0,1e-8", "0.5*(1.0*N/1.0)/(1.0+1e-8)"},
          },
  };
  return k_mechanism;
}
