// Float16 sum accumulation
// ========================
//
// The failure. A float16 has an 11-bit significand: above 2048 its spacing
// is 2, so 2048 + 1 rounds back to 2048, and a running sum kept in float16
// stops growing once its own spacing exceeds the terms it adds. The broken
// path accumulates in float16, rounding after every addition (what
// tf.add_n did for float16 inputs, and what a loss or metric sum kept in the
// autocast dtype does): 4096 ones sum to 2048, and 1 followed by seven terms
// of 2**-11 sums to 1.0 because each addition is a tie rounded to even.
//
// Why the unsuccessful fix fails. TensorFlow issue 27544 proposes two
// changes: sum in tree order, and accumulate in float32. Tree order alone
// (a pairwise sum, each partial sum rounded to float16) keeps long runs of
// similar terms accurate, so the 4096 ones come out right, but every
// internal node still rounds: 1 + seven times 2**-11 gives 1.0029296875
// instead of 1.00390625, and three ones before 2048 give 2050 instead of
// 2052. Rounding each partial sum is rounding more than once.
//
// Why the repair holds. Accumulate in a wider type and round once: float16
// values are multiples of 2**-24 below 65504, so their sum is exact in a
// Python float (53-bit significand) for any list whose partial sums stay
// below 2**29, and rounding that exact sum to float16 once is the correctly
// rounded answer. Rounding follows CPython's struct 'e' format
// (PyFloat_Pack2: round half to even, OverflowError at 65520 and above),
// which the C++ reproduces step for step.
//
// Source: https://github.com/tensorflow/tensorflow/issues/27544
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// struct.unpack('<e', struct.pack('<e', x))[0]: CPython's PyFloat_Pack2
// followed by PyFloat_Unpack2, for finite x.
Result<double> to_half(double x) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  const bool negative = x < 0.0;
  if (negative) x = -x;
  int e = 0;
  double f = std::frexp(x, &e);
  f *= 2.0;
  e--;
  if (e >= 16) return input_error("OverflowError: float too large to pack with e format");
  if (e < -25) {
    f = 0.0;
    e = 0;
  } else if (e < -14) {
    f = std::ldexp(f, 14 + e);
    e = 0;
  } else {
    e += 15;
    f -= 1.0;
  }
  f *= 1024.0;
  unsigned bits = static_cast<unsigned>(f);
  if (f - bits > 0.5 || (f - bits == 0.5 && bits % 2 == 1)) {
    ++bits;
    if (bits == 1024) {
      bits = 0;
      ++e;
      if (e == 31) return input_error("OverflowError: float too large to pack with e format");
    }
  }
  double out = static_cast<double>(bits) / 1024.0;
  if (e == 0) {
    e = -14;
  } else {
    out += 1.0;
    e -= 15;
  }
  out = std::ldexp(out, e);
  return negative ? -out : out;
}

Result<Value> broken(const std::vector<double>& values) {
  double total = 0.0;
  for (double v : values) {
    FAILMAP_TRY_ASSIGN(total, to_half(total + v));
  }
  return Value::floating(total);
}

// tree_sum(values[begin:end]) of the unsuccessful strategy's Python.
Result<double> tree_sum(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  if (end == begin) return 0.0;
  if (end - begin == 1) return to_half(values[begin]);
  const std::size_t mid = begin + (end - begin) / 2;
  FAILMAP_TRY_ASSIGN(auto left, tree_sum(values, begin, mid));
  FAILMAP_TRY_ASSIGN(auto right, tree_sum(values, mid, end));
  return to_half(left + right);
}

Result<Value> unsuccessful(const std::vector<double>& values) {
  FAILMAP_TRY_ASSIGN(auto total, tree_sum(values, 0, values.size()));
  return Value::floating(total);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& values) {
  double total = 0.0;
  for (double v : values) total += v;
  FAILMAP_TRY_ASSIGN(auto rounded, to_half(total));
  return Value::floating(rounded);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_fp16_sum_accumulation() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "fp16-sum-accumulation",
      .title = "Float16 sum accumulation",
      .source = "https://github.com/tensorflow/tensorflow/issues/27544",
      .evaluation_group = {"reduced-precision-accumulation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // "ones past 2048" sums 2048 + 2 * N ones: even, so exact in float16, below 4096.
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A long sum is accumulated in float16",
              .summary = "A long sum is accumulated in float16.",
              .root_cause = "The running total is kept in float16, whose spacing above 2048 is 2, so every "
                            "addition rounds and small terms stop counting.",
              .failure = "The broken path rounds the total to float16 after every addition; 4096 ones sum to 2048.",
              .unsuccessful_approach = "Summing in tree order still rounds every partial sum to float16, so "
                                       "results that need one final rounding come out a spacing off.",
              .contract = "Return the sum of the float16 values rounded to float16 once, as struct's 'e' format "
                          "rounds (half to even); accumulate in a wider type.",
              .why_it_matters = "Loss sums, token counts and metric totals accumulated in the autocast dtype "
                                "silently plateau, and the plateau looks like a converged curve.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def to_half(x):\n"
               "    import struct\n"
               "    return struct.unpack('<e', struct.pack('<e', x))[0]\n"
               "def solve(values):\n"
               "    total = 0.0\n"
               "    for v in values:\n"
               "        total = to_half(total + v)\n"
               "    return total\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def to_half(x):\n"
               "    import struct\n"
               "    return struct.unpack('<e', struct.pack('<e', x))[0]\n"
               "def tree_sum(values):\n"
               "    if len(values) == 0:\n"
               "        return 0.0\n"
               "    if len(values) == 1:\n"
               "        return to_half(values[0])\n"
               "    mid = len(values) // 2\n"
               "    return to_half(tree_sum(values[:mid]) + tree_sum(values[mid:]))\n"
               "def solve(values):\n"
               "    return tree_sum(values)\n"},
              FAILMAP_REPAIRED(repaired,
               "def to_half(x):\n"
               "    import struct\n"
               "    return struct.unpack('<e', struct.pack('<e', x))[0]\n"
               "def solve(values):\n"
               "    total = 0.0\n"
               "    for v in values:\n"
               "        total += v\n"
               "    return to_half(total)\n"),
          }},
      .fixtures =
          {
              {"ones past 2048", "[1.0]*(2048+2*N)", "2048.0+2.0*N"},
              {"small terms after one", "[1.0]+[0.00048828125]*7", "1.00390625"},
              {"halves below 1024", "[0.5]*(2*N)", "1.0*N"},
              {"empty", "[]", "0.0"},
              {"cancellation", "[2048.0,1.0*N,-2048.0]", "1.0*N"},
              {"three ones before 2048", "[1.0,1.0,1.0,2048.0]", "2052.0"},
              {"halves after 1024", "[1024.0]+[0.5]*(2*N+1)", "1024.0+1.0*N+1.0*(N%2)"},
      },
  };
  return k_mechanism;
}
