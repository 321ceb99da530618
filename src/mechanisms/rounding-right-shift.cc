// Rounding right shift
// ====================
//
// The failure. Integer-only inference divides an accumulator by a power of
// two with a right shift, and the result must be rounded to nearest with
// ties away from zero (the rounding the float reference and the hardware
// use). NNgen issue 61 reports that its verification model rounds
// -832 >> 7 (exactly -6.5) to -6 where the hardware gives -7, so the
// software model and the generated circuit disagree on every negative tie.
// The broken path here is the bare shift, `v >> shift`: Python's and C++20's
// arithmetic shift round toward negative infinity, so 13 >> 1 is 6 where
// round(6.5) away from zero is 7, and -3 >> 2 is -1 where -0.75 rounds to -1
// but -1.25 (-5 >> 2) must give -1 and gives -2.
//
// Why the unsuccessful fix fails. Adding half of the divisor before the
// shift, `(v + (1 << shift >> 1)) >> shift`, is the usual repair and the one
// NNgen's verification model used: it rounds to nearest, but a tie goes
// toward positive infinity, so every negative tie (-6.5) comes out one too
// high (-6). It is right for non-negative inputs and for negative values that
// are not exactly halfway.
//
// Why the repair holds. It rounds the magnitude: half is added to |v|, the
// sum is shifted, and the sign is restored, so a tie moves away from zero on
// both sides and a shift of 0 leaves v unchanged (half is 0). Integer
// arithmetic only; the C++ shifts int64 values arithmetically as Python does,
// with the additions checked.
//
// Source: https://github.com/NNgen/nngen/issues/61
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Rounding { Floor, HalfUp, HalfAwayFromZero };

Result<Value> shifted(args::IntListView values, std::int64_t shift, Rounding rounding) {
  if (shift < 0) return input_error("negative shift count");
  if (shift > 62) return input_error("shift counts above 62 are outside this reproducer");
  const std::int64_t half = (std::int64_t{1} << shift) >> 1;
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    if (rounding == Rounding::Floor) {
      out.push_back(v >> shift);
    } else if (rounding == Rounding::HalfUp || v >= 0) {
      FAILMAP_TRY_ASSIGN(auto sum, checked_add(v, half));
      out.push_back(sum >> shift);
    } else {
      FAILMAP_TRY_ASSIGN(auto magnitude, checked_sub(0, v));
      FAILMAP_TRY_ASSIGN(auto sum, checked_add(magnitude, half));
      out.push_back(-(sum >> shift));
    }
  }
  return args::int_list_value(out);
}

Result<Value> broken(args::IntListView values, std::int64_t shift) { return shifted(values, shift, Rounding::Floor); }

Result<Value> unsuccessful(args::IntListView values, std::int64_t shift) {
  return shifted(values, shift, Rounding::HalfUp);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView values, std::int64_t shift) {
  return shifted(values, shift, Rounding::HalfAwayFromZero);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_rounding_right_shift() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "rounding-right-shift",
      .title = "Rounding right shift",
      .source = "https://github.com/NNgen/nngen/issues/61",
      .evaluation_group = {"integer-rounding"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A rounding right shift sends negative ties the wrong way",
              .summary = "A rounding right shift sends negative ties the wrong way.",
              .root_cause = "Division by 2**shift in integer inference is a right shift, which rounds toward "
                            "negative infinity; adding half first rounds ties toward positive infinity instead of "
                            "away from zero.",
              .failure = "The broken path returns v >> shift, the floor, so 13 >> 1 gives 6 instead of 7.",
              .unsuccessful_approach = "Adding (1 << shift) >> 1 before shifting rounds to nearest but moves every "
                                       "negative tie up: -13 >> 1 gives -6 instead of -7.",
              .contract = "Return, for each integer v, v / 2**shift rounded to the nearest integer with ties away "
                          "from zero (shift >= 0; shift 0 returns v).",
              .why_it_matters = "The integer model and the hardware or float reference disagree on every negative "
                                "halfway value, so bit-exact verification fails and activations drift by one step.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, shift):\n"
               "    return [v >> shift for v in values]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, shift):\n"
               "    half = (1 << shift) >> 1\n"
               "    return [(v + half) >> shift for v in values]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, shift):\n"
               "    half = (1 << shift) >> 1\n"
               "    out = []\n"
               "    for v in values:\n"
               "        if v >= 0:\n"
               "            out.append((v + half) >> shift)\n"
               "        else:\n"
               "            out.append(-((-v + half) >> shift))\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"negative tie", "[-(2*N+1)],1", "[-(N+1)]"},
              {"positive tie", "[2*N+1],1", "[N+1]"},
              {"negative below half", "[-(4*N+1)],2", "[-N]"},
              {"ties of both signs", "[8*N+4,-(8*N+4),8*N+3],3", "[N+1,-(N+1),N]"},
              {"shift of zero", "[2*N+1,-(2*N+1),0],0", "[2*N+1,-(2*N+1),0]"},
              {"same values halved", "[2*N+1,-(2*N+1),0],1", "[N+1,-(N+1),0]"},
              {"small magnitudes", "[0,3,-3,-4,4],3", "[0,0,0,-1,1]"},
          },
  };
  return k_mechanism;
}
