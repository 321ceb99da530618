// QuantizeLinear ties
// ===================
//
// The failure. ONNX QuantizeLinear computes y = saturate(round(x / y_scale)
// + y_zero_point) where round is round half to even, the rounding of
// numpy, PyTorch's quantize_per_tensor and the CPU kernels. onnxruntime
// issue 25045 reports that the OpenVINO execution provider rounds half away
// from zero instead, so "it will have 1 difference in some corner case":
// QuantizeLinearOpTest.Int8_PositiveZeroPoint expected 99 and got 100. The
// broken path here is that rounding (C's std::round): x / scale = 2.5 gives
// 3 where the operator's definition gives 2.
//
// Why the unsuccessful fix fails. Rounding with floor(x + 0.5), the form
// TensorFlow PR 117965 standardises for its XLA fake-quant zero point, fixes
// the negative ties whose even neighbour is toward zero (-2.5 becomes -2) but
// rounds every positive tie up (2.5 becomes 3) and moves negative ties with
// an odd neighbour the wrong way (-1.5 becomes -1, not -2). It agrees with
// round half to even only where the tie's upper neighbour is even.
// (Constructed: the other common rounding, applied here.)
//
// Why the repair holds. Python's round() on a float is round half to even,
// the operator's definition; the zero point is added after rounding and the
// sum saturated to uint8 [0, 255]. The C++ divides in the same order and
// rounds with std::nearbyint (half to even in the default rounding mode);
// the fixtures' scales are powers of two, so the quotients and their ties
// are exact.
//
// Source: https://github.com/microsoft/onnxruntime/issues/25045
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Tie { AwayFromZero, Up, ToEven };

Result<Value> quantized(const std::vector<double>& values, double scale, std::int64_t zero_point, Tie tie) {
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  for (double v : values) {
    FAILMAP_TRY_ASSIGN(auto x, args::divide(v, scale));
    double r = 0.0;
    if (tie == Tie::AwayFromZero) {
      const double magnitude = std::floor(std::fabs(x) + 0.5);
      r = x >= 0 ? magnitude : -magnitude;
    } else if (tie == Tie::Up) {
      r = std::floor(x + 0.5);
    } else {
      r = std::nearbyint(x);
    }
    if (!(std::fabs(r) < 9.0e18)) return input_error("a quotient outside int64 is outside this reproducer");
    FAILMAP_TRY_ASSIGN(auto q, checked_add(static_cast<std::int64_t>(r), zero_point));
    out.push_back(q < 0 ? 0 : (q > 255 ? 255 : q));
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::vector<double> values, double scale, std::int64_t zero_point) {
  return quantized(values, scale, zero_point, Tie::AwayFromZero);
}

Result<Value> unsuccessful(std::vector<double> values, double scale, std::int64_t zero_point) {
  return quantized(values, scale, zero_point, Tie::Up);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> values, double scale, std::int64_t zero_point) {
  return quantized(values, scale, zero_point, Tie::ToEven);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_quantize_linear_ties() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "quantize-linear-ties",
      .title = "QuantizeLinear ties",
      .source = "https://github.com/microsoft/onnxruntime/issues/25045",
      .evaluation_group = {"integer-rounding"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {60},
      .prose =
          {
              .case_title = "QuantizeLinear rounds halfway values away from zero",
              .summary = "QuantizeLinear rounds halfway values away from zero.",
              .root_cause = "The quantizer rounds x / scale half away from zero, while the operator is defined with "
                            "round half to even, so every exact tie can land one step off.",
              .failure = "The broken path rounds with floor(|x| + 0.5) and the sign: 2.5 gives 3 instead of 2.",
              .unsuccessful_approach = "floor(x + 0.5) rounds every tie up: right for -2.5, wrong for 2.5 and -1.5.",
              .contract = "Return, for each value v, round(v / scale) + zero_point saturated to [0, 255], with "
                          "Python's round on a float (round half to even).",
              .why_it_matters = "Two runtimes that disagree by one step on ties give different outputs for the same "
                                "quantized model, and conformance tests against the reference fail.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, scale, zero_point):\n"
               "    import math\n"
               "    out = []\n"
               "    for v in values:\n"
               "        x = v / scale\n"
               "        r = math.floor(abs(x) + 0.5)\n"
               "        q = (r if x >= 0 else -r) + zero_point\n"
               "        out.append(max(0, min(255, q)))\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, scale, zero_point):\n"
               "    import math\n"
               "    out = []\n"
               "    for v in values:\n"
               "        q = math.floor(v / scale + 0.5) + zero_point\n"
               "        out.append(max(0, min(255, q)))\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, scale, zero_point):\n"
               "    out = []\n"
               "    for v in values:\n"
               "        q = round(v / scale) + zero_point\n"
               "        out.append(max(0, min(255, q)))\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"positive ties", "[0.25*(4*N+1),0.25*(4*N+3)],0.5,0", "[2*N,2*N+2]"},
              {"a negative tie next to an even value", "[-0.25*(4*N+1)],0.5,128", "[128-2*N]"},
              {"a negative tie next to an odd value", "[-0.25*(4*N+3)],0.5,128", "[126-2*N]"},
              {"no ties", "[0.5*N,1.0*N],0.5,0", "[N,2*N]"},
              {"no ties, a zero point", "[0.5*N,1.0*N],0.5,3", "[N+3,2*N+3]"},
              {"saturation at both ends", "[200.0,-200.0],0.5,N", "[255,0]"},
              {"no ties, a finer scale", "[0.5*N,1.0*N],0.25,0", "[2*N,4*N]"},
          },
  };
  return k_mechanism;
}
