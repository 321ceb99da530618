// Observer range includes zero
// ============================
//
// The failure. Affine quantization maps a real range [lo, hi] onto the
// integers [qmin, qmax] with scale = (hi - lo) / (qmax - qmin) and
// zero_point = qmin - round(lo / scale). The real value 0.0 must be exactly
// representable (zero padding, ReLU outputs, the kernels' zero-point
// arithmetic), so the range has to contain 0. PyTorch issue 23838 reports
// that the observers used the observed (min, max) as they were: "(1, 3)
// should be relaxed to (0, 3) when scale and zero-point are calculated".
// With a one-sided range the zero point falls outside [qmin, qmax] and is
// clamped, so 0.0 no longer maps to an integer and the scale is wrong. The
// broken path here computes the parameters from the raw min and max.
//
// Why the unsuccessful fix fails. Relaxing the range to include zero but
// rounding the zero point half away from zero (C's std::round, the rounding
// TensorFlow's eager fake-quant nudging uses; tensorflow issue 117962 shows
// the two roundings moving the nudged range by a full step) gives a zero
// point one step off whenever lo / scale is exactly halfway between integers
// and the even neighbour is the nearer-to-zero one: lo / scale = -2.5 gives 3
// where torch.round and Python's round give 2. (Constructed combination.)
//
// Why the repair holds. lo = min(min(values), 0.0), hi = max(max(values),
// 0.0), so the range always holds 0; zero_point = qmin - round(lo / scale)
// with round half to even (torch.round, Python round), clamped to [qmin,
// qmax]. The C++ divides in the Python's order and rounds with
// std::nearbyint, which is round half to even in the default rounding mode.
//
// Source: https://github.com/pytorch/pytorch/issues/23838
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Range { Observed, IncludesZeroTiesAway, IncludesZero };

Result<Value> parameters(const std::vector<double>& values, std::int64_t bits, Range range) {
  if (values.empty()) return input_error("min() arg is an empty sequence");
  if (bits < 1 || bits > 62) return input_error("bits outside 1..62 are outside this reproducer");
  const std::int64_t qmax = (std::int64_t{1} << bits) - 1;
  double lo = values[0], hi = values[0];
  for (double v : values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (range != Range::Observed) {
    if (0.0 < lo) lo = 0.0;
    if (0.0 > hi) hi = 0.0;
  }
  FAILMAP_TRY_ASSIGN(auto scale, args::divide(hi - lo, static_cast<double>(qmax)));
  FAILMAP_TRY_ASSIGN(auto x, args::divide(lo, scale));
  double nearest = 0.0;
  if (range == Range::IncludesZeroTiesAway) {
    const double magnitude = std::floor(std::fabs(x) + 0.5);
    nearest = x >= 0 ? magnitude : -magnitude;
  } else {
    nearest = std::nearbyint(x);
  }
  if (!(std::fabs(nearest) < 9.0e18)) return input_error("zero point outside int64 is outside this reproducer");
  std::int64_t zero_point = -static_cast<std::int64_t>(nearest);
  if (zero_point > qmax) zero_point = qmax;
  if (zero_point < 0) zero_point = 0;
  return Value::list({Value::floating(scale), Value::integer(zero_point)});
}

Result<Value> broken(std::vector<double> values, std::int64_t bits) { return parameters(values, bits, Range::Observed); }

Result<Value> unsuccessful(std::vector<double> values, std::int64_t bits) {
  return parameters(values, bits, Range::IncludesZeroTiesAway);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> values, std::int64_t bits) {
  return parameters(values, bits, Range::IncludesZero);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_observer_range_includes_zero() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "observer-range-includes-zero",
      .title = "Observer range includes zero",
      .source = "https://github.com/pytorch/pytorch/issues/23838",
      .evaluation_group = {"quantization-range"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Quantization parameters from a range that does not contain zero",
              .summary = "Quantization parameters from a range that does not contain zero.",
              .root_cause = "The observer computes scale and zero point from the observed min and max without "
                            "relaxing them to include 0.0, so one-sided ranges cannot represent zero.",
              .failure = "The broken path uses [min, max] as observed: [2, 15] with 4 bits gives scale 13/15 and a "
                         "zero point clamped to 0.",
              .unsuccessful_approach = "Relaxing the range but rounding the zero point half away from zero moves it "
                                       "one step on exact ties.",
              .contract = "qmin = 0, qmax = 2**bits - 1; lo = min(min(values), 0.0), hi = max(max(values), 0.0); "
                          "scale = (hi - lo) / qmax; zero_point = 0 - round(lo / scale) with Python's round (half to "
                          "even), clamped to [0, qmax]; return [scale, zero_point].",
              .why_it_matters = "If 0.0 is not exactly representable, zero padding and ReLU outputs quantize to a "
                                "non-zero value and every quantized kernel accumulates the error.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, bits):\n"
               "    qmax = 2 ** bits - 1\n"
               "    lo = min(values)\n"
               "    hi = max(values)\n"
               "    scale = (hi - lo) / qmax\n"
               "    zero_point = 0 - round(lo / scale)\n"
               "    return [scale, max(0, min(qmax, zero_point))]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, bits):\n"
               "    import math\n"
               "    qmax = 2 ** bits - 1\n"
               "    lo = min(min(values), 0.0)\n"
               "    hi = max(max(values), 0.0)\n"
               "    scale = (hi - lo) / qmax\n"
               "    x = lo / scale\n"
               "    nearest = math.floor(abs(x) + 0.5)\n"
               "    zero_point = 0 - (nearest if x >= 0 else -nearest)\n"
               "    return [scale, max(0, min(qmax, zero_point))]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, bits):\n"
               "    qmax = 2 ** bits - 1\n"
               "    lo = min(min(values), 0.0)\n"
               "    hi = max(max(values), 0.0)\n"
               "    scale = (hi - lo) / qmax\n"
               "    zero_point = 0 - round(lo / scale)\n"
               "    return [scale, max(0, min(qmax, zero_point))]\n"),
          }},
      .fixtures =
          {
              {"positive values, 4 bits", "[2.0*N,15.0*N],4", "[1.0*N,0]"},
              {"negative values, 4 bits", "[-15.0*N,-2.0*N],4", "[1.0*N,15]"},
              {"a range around zero, 4 bits", "[-5.0*N,10.0*N],4", "[1.0*N,5]"},
              {"the same range, 3 bits", "[-5.0*N,10.0*N],3", "[15.0*N/7,2]"},
              {"positive values, 3 bits", "[1.0*N,7.0*N],3", "[1.0*N,0]"},
              {"a tie below zero", "[-2.5*N,12.5*N],4", "[1.0*N,2]"},
              {"a tie next to zero", "[-0.5*N,6.5*N],3", "[1.0*N,0]"},
          },
  };
  return k_mechanism;
}
