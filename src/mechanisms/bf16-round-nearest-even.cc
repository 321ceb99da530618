// bfloat16 round to nearest even
// ==============================
//
// The failure. A float32 value becomes bfloat16 by keeping the top 16 bits
// of its bit pattern. Keeping them as they are truncates toward zero: the
// universal number library's bfloat16 did `bits >> 16`, and its issue 1133
// reports 0.2691408770292272 (float bits 0x3E89CCD5) converting to
// 0.267578125 where the round-to-nearest-even conversion of TPUs, Intel and
// PyTorch gives 0.26953125 (0x3E8A). Truncation also biases every rounded
// value toward zero, and a NaN whose payload sits only in the low 16 bits
// becomes infinity. The broken path here is that shift.
//
// Why the unsuccessful fix fails. Adding 0x8000 before the shift rounds to
// nearest, but a tie (low half exactly 0x8000) always rounds up, away from the
// even neighbour, so half of all ties gain one unit in the last place, and a
// NaN still carries into the exponent: 0x7F800001 + 0x8000 keeps 0x7F80,
// infinity. (Constructed: the common first attempt; the thread goes straight
// to the bias 0x7FFF + lsb.)
//
// Why the repair holds. A NaN (exponent all ones, non-zero fraction) maps to
// the canonical quiet NaN 0x7FC0 as PyTorch's c10 and onnx.helper do;
// every other pattern gets the bias 0x7FFF plus the lowest kept bit, so a tie
// rounds up exactly when the kept half is odd, and a carry into the exponent
// (or to infinity at the top of the range) is the correct rounding. Integer
// arithmetic only, the same in C++ and Python.
//
// Source: https://github.com/stillwater-sc/universal/issues/1133
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Conversion { Truncate, HalfUp, NearestEven };

Result<Value> converted(args::IntListView bits, Conversion conversion) {
  std::vector<std::int64_t> out;
  out.reserve(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const std::int64_t b = bits[i];
    if (conversion == Conversion::Truncate) {
      out.push_back(b >> 16);
      continue;
    }
    if (conversion == Conversion::NearestEven && (b & 0x7FFFFFFF) > 0x7F800000) {
      out.push_back(0x7FC0);
      continue;
    }
    const std::int64_t bias = conversion == Conversion::HalfUp ? 0x8000 : 0x7FFF + ((b >> 16) & 1);
    FAILMAP_TRY_ASSIGN(auto sum, checked_add(b, bias));
    out.push_back(sum >> 16);
  }
  return args::int_list_value(out);
}

Result<Value> broken(args::IntListView bits) { return converted(bits, Conversion::Truncate); }

Result<Value> unsuccessful(args::IntListView bits) { return converted(bits, Conversion::HalfUp); }

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView bits) { return converted(bits, Conversion::NearestEven); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_bf16_round_nearest_even() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "bf16-round-nearest-even",
      .title = "bfloat16 round to nearest even",
      .source = "https://github.com/stillwater-sc/universal/issues/1133",
      .evaluation_group = {"float-format-conversion"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Float32 to bfloat16 conversion truncates instead of rounding to nearest even",
              .summary = "Float32 to bfloat16 conversion truncates instead of rounding to nearest even.",
              .root_cause = "The conversion keeps the top 16 bits of the float32 pattern with a bare shift, which "
                            "rounds toward zero and turns a NaN with a low payload into infinity.",
              .failure = "The broken path returns bits >> 16: 0x3E89CCD5 gives 0x3E89 instead of 0x3E8A.",
              .unsuccessful_approach = "Adding 0x8000 before the shift rounds every tie up instead of to the even "
                                       "neighbour, and a NaN with a low payload still becomes infinity.",
              .contract = "Return, for each float32 bit pattern b (0 <= b < 2**32), the bfloat16 bit pattern of its "
                          "round-to-nearest-even conversion; any NaN gives 0x7FC0 (32704).",
              .why_it_matters = "Truncation biases every converted weight and activation toward zero and disagrees "
                                "with the bfloat16 arithmetic of accelerators, so results are not reproducible.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(bits):\n"
               "    return [b >> 16 for b in bits]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(bits):\n"
               "    return [(b + 0x8000) >> 16 for b in bits]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(bits):\n"
               "    out = []\n"
               "    for b in bits:\n"
               "        if (b & 0x7FFFFFFF) > 0x7F800000:\n"
               "            out.append(0x7FC0)\n"
               "        else:\n"
               "            out.append((b + 0x7FFF + ((b >> 16) & 1)) >> 16)\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"tie with an even kept half", "[(16256+2*N)*65536+32768]", "[16256+2*N]"},
              {"tie with an odd kept half", "[(16257+2*N)*65536+32768]", "[16258+2*N]"},
              {"above half", "[(16256+N)*65536+32769]", "[16257+N]"},
              {"NaN with a low payload", "[2139095040+N,4286578688+N]", "[32704,32704]"},
              {"negative tie", "[2147483648+(16256+2*N)*65536+32768]", "[32768+16256+2*N]"},
              {"carry into the exponent", "[16383*65536+32768+N]", "[16384]"},
              {"exact values and infinities", "[N*65536,2139095040,4286578688]", "[N,32640,65408]"},
          },
  };
  return k_mechanism;
}
