// Requantized zero point saturation
// =================================
//
// The failure. An int8 kernel requantizes its int32 accumulator to the
// output scale and then adds the output's zero point; the sum must be
// saturated to [-128, 127]. tflite-micro PR 3627 reports that the int8 SVDF
// kernel clamps the requantized dot product first and adds the activation
// state's zero point afterwards, writing the sum into an int8 buffer: a sum
// outside the int8 range "silently wraps around (mod 256) instead of
// saturating", corrupting the recurrent state of any model with a non-zero
// zero point. The broken path here is that order with the wrap: 120 with a
// zero point of 11 stores -125 instead of 127.
//
// Why the unsuccessful fix fails. Clamping again after adding the zero point
// stops the wrap, but the first clamp still runs before the zero point is
// added, so a value outside the int8 range that the zero point would bring
// back inside is cut first: 220 with a zero point of -100 gives
// 127 - 100 = 27 instead of 120. It is right whenever the value itself is
// inside the int8 range. (Constructed: the minimal patch of the wrap.)
//
// Why the repair holds. The zero point is added to the unclamped value and
// the sum is clamped once, as TFLite's reference kernels do (add the output
// offset, then clamp to the activation range). Integer arithmetic, checked.
//
// Source: https://github.com/tensorflow/tflite-micro/pull/3627
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Order { ClampAddWrap, ClampAddClamp, AddClamp };

std::int64_t saturate(std::int64_t v) { return v < -128 ? -128 : (v > 127 ? 127 : v); }

Result<Value> requantized(args::IntListView values, std::int64_t zero_point, Order order) {
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = order == Order::AddClamp ? values[i] : saturate(values[i]);
    FAILMAP_TRY_ASSIGN(auto sum, checked_add(v, zero_point));
    if (order == Order::ClampAddWrap) {
      FAILMAP_TRY_ASSIGN(auto shifted, checked_add(sum, 128));
      FAILMAP_TRY_ASSIGN(auto wrapped, checked_mod(shifted, 256));
      out.push_back(wrapped - 128);
    } else {
      out.push_back(saturate(sum));
    }
  }
  return args::int_list_value(out);
}

Result<Value> broken(args::IntListView values, std::int64_t zero_point) {
  return requantized(values, zero_point, Order::ClampAddWrap);
}

Result<Value> unsuccessful(args::IntListView values, std::int64_t zero_point) {
  return requantized(values, zero_point, Order::ClampAddClamp);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView values, std::int64_t zero_point) {
  return requantized(values, zero_point, Order::AddClamp);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_requant_zero_point_saturation() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "requant-zero-point-saturation",
      .title = "Requantized zero point saturation",
      .source = "https://github.com/tensorflow/tflite-micro/pull/3627",
      .evaluation_group = {"quantization-range"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {20},
      .prose =
          {
              .case_title = "The output zero point is added after the int8 clamp and wraps around",
              .summary = "The output zero point is added after the int8 clamp and wraps around.",
              .root_cause = "The requantized value is clamped to int8 before the zero point is added, and the sum is "
                            "narrowed to int8 with wrap-around instead of saturation.",
              .failure = "The broken path returns (clamp(v) + zero_point + 128) % 256 - 128: 120 with a zero point "
                         "of 11 gives -125.",
              .unsuccessful_approach = "Clamping again after the addition stops the wrap but still cuts values the "
                                       "zero point would have brought back into range.",
              .contract = "Return, for each requantized value v, v + zero_point saturated to [-128, 127].",
              .why_it_matters = "A wrapped activation flips from the top of the range to the bottom; in a recurrent "
                                "state it corrupts every later step of the model.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, zero_point):\n"
               "    out = []\n"
               "    for v in values:\n"
               "        v = max(-128, min(127, v))\n"
               "        out.append((v + zero_point + 128) % 256 - 128)\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, zero_point):\n"
               "    out = []\n"
               "    for v in values:\n"
               "        v = max(-128, min(127, v))\n"
               "        out.append(max(-128, min(127, v + zero_point)))\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, zero_point):\n"
               "    return [max(-128, min(127, v + zero_point)) for v in values]\n"),
          }},
      .fixtures =
          {
              {"inside the range", "[N,-N],3", "[N+3,3-N]"},
              {"past the top", "[120],10+N", "[127]"},
              {"brought back from above", "[200+N],-100", "[100+N]"},
              {"past the bottom", "[-120],-10-N", "[-128]"},
              {"brought back and past the bottom", "[200+N,-120],-100", "[100+N,-128]"},
              {"a negative zero point", "[N,-N],-3", "[N-3,-N-3]"},
              {"other values", "[2*N,0],3", "[2*N+3,3]"},
          },
  };
  return k_mechanism;
}
