// Inverted dropout scaled by the drop probability
// ===============================================
//
// The failure. Inverted dropout zeroes each unit with probability p during
// training and divides the kept ones by the keep probability 1 - p, so the
// expected activation is unchanged and evaluation uses the inputs as they are.
// theanets' BernoulliDropout divided by the drop probability p instead
// (lmjohns3/theanets pull request 123): with p = 0.1 the kept units were
// multiplied by 10 instead of 1/0.9, and train-time activations were nine
// times too large. With p = 0.5 the two coincide, which is why the slip
// survives a default configuration.
//
// Why the unsuccessful fix fails. Dividing by 1 - p in training AND scaling
// by 1 - p at evaluation, as the original dropout paper does for
// non-inverted dropout (the reading of karpathy/convnetjs pull request 106),
// applies the correction twice: training is right, but every evaluation
// output is shrunk by the keep probability. (Constructed: mixing the two
// conventions is the common slip the chainer and swift-apis threads explain.)
//
// Why the repair holds. Training returns x * mask / (1 - p), in that order;
// evaluation returns x unchanged, whatever the mask and p. Fixture inputs are
// chosen so that each division is exact (3.0 / 0.75, 2.0 / 0.5), and the
// C++ performs the same two operations in the same order as the Python.
//
// Source: https://github.com/lmjohns3/theanets/pull/123
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Scale { ByDropProbability, TrainAndEval, Inverted };

Result<Value> dropout(const std::vector<double>& x, args::IntListView mask, double p, std::int64_t training,
                      Scale scale) {
  std::vector<double> out;
  const std::size_t n = std::min(x.size(), mask.size());
  if (!training) {
    if (scale != Scale::TrainAndEval) return args::float_list_value(x);
    for (double v : x) out.push_back(v * (1 - p));
    return args::float_list_value(out);
  }
  const double keep = scale == Scale::ByDropProbability ? p : 1 - p;
  for (std::size_t i = 0; i < n; ++i) {
    FAILMAP_TRY_ASSIGN(auto v, args::divide(x[i] * static_cast<double>(mask[i]), keep));
    out.push_back(v);
  }
  return args::float_list_value(out);
}

Result<Value> broken(const std::vector<double>& x, args::IntListView mask, double p, std::int64_t training) {
  return dropout(x, mask, p, training, Scale::ByDropProbability);
}

Result<Value> unsuccessful(const std::vector<double>& x, args::IntListView mask, double p, std::int64_t training) {
  return dropout(x, mask, p, training, Scale::TrainAndEval);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& x, args::IntListView mask, double p, std::int64_t training) {
  return dropout(x, mask, p, training, Scale::Inverted);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_dropout_scale_factor() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "dropout-scale-factor",
      .title = "Inverted dropout scaled by the drop probability",
      .source = "https://github.com/lmjohns3/theanets/pull/123",
      .evaluation_group = {"dropout-scaling"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Dropout divides the kept units by the drop probability",
              .summary = "Dropout divides the kept units by the drop probability.",
              .root_cause = "Training-time dropout divides the kept activations by p, the drop probability, instead "
                            "of by the keep probability 1 - p.",
              .failure = "The broken path scales training activations by 1/p, right only at p = 0.5, so training "
                         "and evaluation see activations of different sizes.",
              .unsuccessful_approach = "Dividing by 1 - p in training and also multiplying by 1 - p at evaluation "
                                       "corrects the scale twice and shrinks every evaluation output.",
              .contract = "Return the dropout layer's output: when training (training = 1) x_i * mask_i / (1 - p), "
                          "computed in that order; at evaluation (training = 0) x unchanged.",
              .why_it_matters = "A wrong dropout scale changes the activation statistics between training and "
                                "evaluation, so the evaluated network is not the trained one.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(x, mask, p, training):\n"
               "    if not training:\n"
               "        return x\n"
               "    return [v * m / p for v, m in zip(x, mask)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(x, mask, p, training):\n"
               "    if not training:\n"
               "        return [v * (1 - p) for v in x]\n"
               "    return [v * m / (1 - p) for v, m in zip(x, mask)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(x, mask, p, training):\n"
               "    if not training:\n"
               "        return x\n"
               "    return [v * m / (1 - p) for v, m in zip(x, mask)]\n"),
          }},
      .fixtures =
          {
              {"training, p 0.25", "[3.0]*N+[6.0],[1]*N+[0],0.25,1", "[4.0]*N+[0.0]"},
              {"evaluation, p 0.25", "[3.0]*N+[6.0],[1]*N+[0],0.25,0", "[3.0]*N+[6.0]"},
              {"evaluation, p 0.5", "[2.0,4.0]*N,[1,0]*N,0.5,0", "[2.0,4.0]*N"},
              {"training, p 0.75", "[1.0]*N+[2.0],[1]*(N+1),0.75,1", "[4.0]*N+[8.0]"},
              {"training, other units dropped", "[3.0]*N+[6.0],[0]*N+[1],0.25,1", "[0.0]*N+[8.0]"},
              {"training, other inputs", "[6.0]*N+[3.0],[1]*N+[0],0.25,1", "[8.0]*N+[0.0]"},
              {"training, p 0.5", "[3.0]*N+[6.0],[1]*N+[0],0.5,1", "[6.0]*N+[0.0]"},
          },
  };
  return k_mechanism;
}
