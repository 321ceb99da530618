// Parameter group learning-rate scale
// ===================================
//
// The failure. Layer-wise learning rates (layer decay, discriminative
// fine-tuning, a smaller rate for a pretrained backbone) put parameters in
// optimizer groups whose learning rate is the schedule's value times a
// per-group scale. A scheduler that writes one scheduled value into every
// group erases the scales: HorizonRobotics/alf's optimizer wrapper did
// `for param_group in self.param_groups: param_group['lr'] = lr` until PR
// 1578 gave each group its own schedule. The broken path sets every group to
// base_lr * factor.
//
// Why the unsuccessful fix fails. Keeping the scales by updating each
// group's current learning rate in place, lr <- lr * factor, is constructed
// here as the unsuccessful fix: it is what torch's MultiplicativeLR does,
// and it is what a LambdaLR lambda becomes when it is handed to
// MultiplicativeLR. The first step is right, and so is a constant schedule,
// but every later factor compounds on the previous ones: a warmup of 0.5 then
// 1.0 leaves the rate at half, a decay of 0.5 then 0.25 gives an eighth
// instead of a quarter.
//
// Why the repair holds. At every step each group's rate is computed afresh
// from its own base, base_lr * scale * factor (LambdaLR semantics per group,
// as timm applies a group's lr_scale to the scheduled value): the scale
// survives every step and the factor never compounds. The C++ performs the
// same two multiplications in the same order.
//
// Source: https://github.com/HorizonRobotics/alf/pull/1578
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Floats = std::vector<double>;

enum class Update { OneValueForAll, Compounding, FromBase };

Result<Value> group_lrs(double base_lr, const Floats& scales, const Floats& factors, Update update) {
  std::vector<double> current;
  for (double s : scales) current.push_back(base_lr * s);
  Value::List out;
  for (double f : factors) {
    std::vector<double> step;
    for (std::size_t g = 0; g < scales.size(); ++g) {
      if (update == Update::OneValueForAll) step.push_back(base_lr * f);
      if (update == Update::Compounding) step.push_back(current[g] = current[g] * f);
      if (update == Update::FromBase) step.push_back(base_lr * scales[g] * f);
    }
    out.push_back(args::float_list_value(step));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(double base_lr, const Floats& scales, const Floats& factors) {
  return group_lrs(base_lr, scales, factors, Update::OneValueForAll);
}
Result<Value> unsuccessful(double base_lr, const Floats& scales, const Floats& factors) {
  return group_lrs(base_lr, scales, factors, Update::Compounding);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(double base_lr, const Floats& scales, const Floats& factors) {
  return group_lrs(base_lr, scales, factors, Update::FromBase);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_param_group_lr_scale() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "param-group-lr-scale",
      .title = "Parameter group learning-rate scale",
      .source = "https://github.com/HorizonRobotics/alf/pull/1578",
      .evaluation_group = {"param-groups"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // "constant schedule" returns N steps: within the 1,000,000-element cap.
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The scheduler overwrites per-group learning-rate scales",
              .summary = "The scheduler overwrites per-group learning-rate scales.",
              .root_cause = "Each optimizer group's rate is the scheduled value times its own scale, but the "
                            "scheduler writes one value into every group.",
              .failure = "The broken path sets every group to base_lr * factor, so layer-wise scales vanish at the "
                         "first scheduler step.",
              .unsuccessful_approach = "Multiplying each group's current rate by the factor keeps the scales but "
                                       "compounds the factors of successive steps.",
              .contract = "For each step's factor return, per group, base_lr * scale * factor, computed from the "
                          "group's base every step.",
              .why_it_matters = "Layer-wise rates protect pretrained layers during fine-tuning; losing them or "
                                "compounding the schedule changes the recipe without an error.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(base_lr, scales, factors):\n"
               "    out = []\n"
               "    for f in factors:\n"
               "        out.append([base_lr * f for s in scales])\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(base_lr, scales, factors):\n"
               "    lrs = [base_lr * s for s in scales]\n"
               "    out = []\n"
               "    for f in factors:\n"
               "        lrs = [lr * f for lr in lrs]\n"
               "        out.append(lrs)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(base_lr, scales, factors):\n"
               "    out = []\n"
               "    for f in factors:\n"
               "        out.append([base_lr * s * f for s in scales])\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"one step, two layers", "2.0*N,[1.0,0.5],[0.5]", "[[1.0*N,0.5*N]]"},
              {"warmup over two steps", "4.0*N,[1.0,0.25],[0.5,1.0]", "[[2.0*N,0.5*N],[4.0*N,1.0*N]]"},
              {"equal scales", "1.0*N,[1.0,1.0],[0.5,0.5]", "[[0.5*N,0.5*N],[0.5*N,0.5*N]]"},
              {"constant schedule", "2.0,[1.0,0.5],[1.0]*N", "[[2.0,1.0]]*N"},
              {"no steps", "1.0,[1.0,0.5],[]", "[]"},
              {"three-step decay", "8.0,[1.0],[1.0,0.5,0.25]", "[[8.0],[4.0],[2.0]]"},
              {"deeper layers scaled down", "1.0*N,[1.0,0.5,0.25],[0.5]", "[[0.5*N,0.25*N,0.125*N]]"},
      },
  };
  return k_mechanism;
}
