// Weight decay on norm and bias
// =============================
//
// The failure. Weight decay shrinks a parameter toward zero each step,
// p <- p - lr * weight_decay * p. It is meant for the weight matrices of
// matmuls and embeddings; biases, LayerNorm/BatchNorm gains and scalar gates
// are conventionally excluded (BERT's optimizer, nanoGPT's configure
// optimizers), since decaying a norm gain toward zero fights the
// normalisation itself. The broken path hands model.parameters() to AdamW
// with one weight_decay, as lit-llama issue 254 found in its training
// script: every parameter is decayed.
//
// Why the unsuccessful fix fails. Excluding parameters by name, with a
// no_decay list of "bias" alone (keras-bert issue 60: "bias has excluded
// from weight decay. But are LayerNorm layers excluded?"), removes the
// biases but keeps decaying norm gains and scalar parameters, whose names
// do not end in "bias". Name lists break again whenever a model names its
// norms ln_1 or norm instead of LayerNorm.
//
// Why the repair holds. The rule nanoGPT adopted is structural: decay a
// parameter if and only if it has two or more dimensions (weights of
// linear, convolution and embedding layers); every 1-D or 0-D parameter
// (biases, norm gains and shifts, scalars) is left alone. It needs no names
// and covers any layer a model adds. The decay is the decoupled one, applied
// as p - lr * weight_decay * p with the same multiplications in C++.
//
// Source: https://github.com/Lightning-AI/lit-llama/issues/254
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Rule { All, NotBias, MatrixOnly };

Result<Value> decay(args::IntListView ndims, args::IntListView is_bias, const std::vector<double>& values, double lr,
                    double weight_decay, Rule rule) {
  std::vector<double> out;
  const std::size_t n = std::min({ndims.size(), is_bias.size(), values.size()});
  for (std::size_t i = 0; i < n; ++i) {
    double p = values[i];
    const bool decayed = rule == Rule::All       ? true
                         : rule == Rule::NotBias ? is_bias[i] == 0
                                                 : ndims[i] >= 2;
    if (decayed) p = p - lr * weight_decay * p;
    out.push_back(p);
  }
  return args::float_list_value(out);
}

Result<Value> broken(args::IntListView ndims, args::IntListView is_bias, const std::vector<double>& values, double lr,
                     double weight_decay) {
  return decay(ndims, is_bias, values, lr, weight_decay, Rule::All);
}
Result<Value> unsuccessful(args::IntListView ndims, args::IntListView is_bias, const std::vector<double>& values,
                           double lr, double weight_decay) {
  return decay(ndims, is_bias, values, lr, weight_decay, Rule::NotBias);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView ndims, args::IntListView is_bias, const std::vector<double>& values,
                       double lr, double weight_decay) {
  return decay(ndims, is_bias, values, lr, weight_decay, Rule::MatrixOnly);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_weight_decay_norm_bias() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "weight-decay-norm-bias",
      .title = "Weight decay on norm and bias",
      .source = "https://github.com/Lightning-AI/lit-llama/issues/254",
      .evaluation_group = {"param-groups"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Weight decay is applied to biases and normalisation gains",
              .summary = "Weight decay is applied to biases and normalisation gains.",
              .root_cause = "All parameters go into one optimizer group with weight decay, so 1-D parameters are "
                            "shrunk toward zero along with the weight matrices.",
              .failure = "The broken path decays every parameter, biases and LayerNorm gains included.",
              .unsuccessful_approach = "Excluding only parameters named as biases still decays norm gains and "
                                       "scalar parameters.",
              .contract = "Apply p - lr * weight_decay * p to parameters with two or more dimensions and leave "
                          "every parameter with fewer dimensions unchanged.",
              .why_it_matters = "Decaying normalisation gains and biases degrades accuracy in a way no loss curve "
                                "attributes to the optimizer configuration.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(ndims, is_bias, values, lr, weight_decay):\n"
               "    out = []\n"
               "    for ndim, bias, p in zip(ndims, is_bias, values):\n"
               "        p = p - lr * weight_decay * p\n"
               "        out.append(p)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(ndims, is_bias, values, lr, weight_decay):\n"
               "    out = []\n"
               "    for ndim, bias, p in zip(ndims, is_bias, values):\n"
               "        if not bias:\n"
               "            p = p - lr * weight_decay * p\n"
               "        out.append(p)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(ndims, is_bias, values, lr, weight_decay):\n"
               "    out = []\n"
               "    for ndim, bias, p in zip(ndims, is_bias, values):\n"
               "        if ndim >= 2:\n"
               "            p = p - lr * weight_decay * p\n"
               "        out.append(p)\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"linear layer", "[2,1],[0,1],[4.0*N,2.0],0.5,0.5", "[4.0*N-0.5*0.5*(4.0*N),2.0]"},
              {"layer norm gain", "[1],[0],[1.0*N],0.5,0.5", "[1.0*N]"},
              {"embedding matrix", "[2],[0],[8.0],0.25,0.5", "[8.0-0.25*0.5*8.0]"},
              {"layer norm gain and shift", "[1,1],[0,1],[2.0*N,2.0],0.5,0.5", "[2.0*N,2.0]"},
              {"no weight decay", "[2,1,1],[0,0,1],[1.0*N,2.0,3.0],0.5,0.0", "[1.0*N,2.0,3.0]"},
              {"convolution kernel", "[4],[0],[2.0*N],0.5,0.5", "[2.0*N-0.5*0.5*(2.0*N)]"},
              {"scalar gate", "[0],[0],[3.0*N],0.5,0.5", "[3.0*N]"},
      },
  };
  return k_mechanism;
}
