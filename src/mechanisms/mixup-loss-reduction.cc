// Mixup loss reduced before the reduction is chosen
// =================================================
//
// The failure. Mixup trains on blended inputs with per-sample weights lam_i
// and blends the two losses the same way: lam_i * loss_a_i + (1 - lam_i) *
// loss_b_i, then applies the criterion's reduction ('none', 'mean' or
// 'sum'). fastai's MixUpLoss took the mean of the blended losses first and
// applied the reduction to that scalar afterwards, so reduction='sum' returned
// the mean and reduction='none' returned one number instead of one loss per
// sample (fastai/fastai issue 2286, fixed by pull request 2289). Losses
// [2.0, 2.0] and [4.0, 4.0] with lam 0.25 give 3.5 under 'sum' instead of 7.0.
//
// Why the unsuccessful fix fails. Reducing each criterion on its own and
// blending the two results with the batch's mean lambda, lam * criterion(a) +
// (1 - lam) * criterion(b), is the form of the original mixup-cifar10 code
// (huggingface/pytorch-image-models issue 46 discusses the equivalence) and
// gives every reduction its own shape back. It equals the per-sample blend
// only when every sample has the same lambda; with per-sample lambdas (fastai
// draws one per sample) it weights the wrong losses. (Constructed from that
// form; the fastai fix removed the early mean.)
//
// Why the repair holds. It blends per sample, then reduces: the list itself
// for 'none' (reduction 0), the left-to-right sum divided by the count for
// 'mean' (1), the sum for 'sum' (2). Fixture losses and lambdas are dyadic, so
// every product and sum is exact and only the mean's division rounds, the
// same in Python and C++.
//
// Source: https://github.com/fastai/fastai/issues/2286
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Floats = std::vector<double>;

enum class Blend { MeanFirst, MeanLambda, PerSample };

Result<Value> reduce(const Floats& xs, std::int64_t reduction) {
  if (reduction == 0) return args::float_list_value(xs);
  double total = 0.0;
  for (double x : xs) total += x;
  if (reduction == 2) return Value::floating(total);
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(xs.size())));
  return Value::floating(mean);
}

Result<Value> mixup_loss(const Floats& loss_a, const Floats& loss_b, const Floats& lam, std::int64_t reduction,
                         Blend blend) {
  const std::size_t n = std::min({loss_a.size(), loss_b.size(), lam.size()});
  if (blend == Blend::MeanLambda) {
    double lam_total = 0.0;
    for (double l : lam) lam_total += l;
    FAILMAP_TRY_ASSIGN(auto lm, args::divide(lam_total, static_cast<double>(lam.size())));
    if (reduction == 0) {
      Floats mixed;
      for (std::size_t i = 0; i < std::min(loss_a.size(), loss_b.size()); ++i)
        mixed.push_back(lm * loss_a[i] + (1 - lm) * loss_b[i]);
      return args::float_list_value(mixed);
    }
    FAILMAP_TRY_ASSIGN(auto ra, reduce(loss_a, reduction));
    FAILMAP_TRY_ASSIGN(auto rb, reduce(loss_b, reduction));
    return Value::floating(lm * ra.as_float() + (1 - lm) * rb.as_float());
  }
  Floats mixed;
  for (std::size_t i = 0; i < n; ++i) mixed.push_back(lam[i] * loss_a[i] + (1 - lam[i]) * loss_b[i]);
  if (blend == Blend::PerSample) return reduce(mixed, reduction);
  return reduce(mixed, 1);  // the mean is taken first, whatever the reduction
}

Result<Value> broken(const Floats& loss_a, const Floats& loss_b, const Floats& lam, std::int64_t reduction) {
  return mixup_loss(loss_a, loss_b, lam, reduction, Blend::MeanFirst);
}

Result<Value> unsuccessful(const Floats& loss_a, const Floats& loss_b, const Floats& lam, std::int64_t reduction) {
  return mixup_loss(loss_a, loss_b, lam, reduction, Blend::MeanLambda);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Floats& loss_a, const Floats& loss_b, const Floats& lam, std::int64_t reduction) {
  return mixup_loss(loss_a, loss_b, lam, reduction, Blend::PerSample);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_mixup_loss_reduction() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "mixup-loss-reduction",
      .title = "Mixup loss reduced before the reduction is chosen",
      .source = "https://github.com/fastai/fastai/issues/2286",
      .evaluation_group = {"mixed-targets"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The mixup loss returns the mean whatever reduction is asked for",
              .summary = "The mixup loss returns the mean whatever reduction is asked for.",
              .root_cause = "The blended per-sample losses are averaged before the criterion's reduction is applied, "
                            "so 'sum' and 'none' both receive a scalar mean.",
              .failure = "The broken path returns the mean for reduction 'sum' and a single number for 'none', "
                         "so summed losses shrink by the batch size and per-sample weighting is impossible.",
              .unsuccessful_approach = "Reducing each loss first and blending with the batch's mean lambda gives "
                                       "the right shapes but is wrong when lambdas differ per sample.",
              .contract = "Return the mixup loss: mixed_i = lam_i * loss_a_i + (1 - lam_i) * loss_b_i; reduction 0 "
                          "returns the list of mixed_i, 1 their left-to-right sum divided by their count, 2 their "
                          "sum.",
              .why_it_matters = "A loss that silently ignores its reduction changes the gradient scale by the batch "
                                "size and breaks any code that weights samples after the criterion.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def reduce(xs, reduction):\n"
               "    if reduction == 0:\n"
               "        return xs\n"
               "    total = 0.0\n"
               "    for x in xs:\n"
               "        total += x\n"
               "    return total if reduction == 2 else total / len(xs)\n"
               "def solve(loss_a, loss_b, lam, reduction):\n"
               "    mixed = [l * a + (1 - l) * b for a, b, l in zip(loss_a, loss_b, lam)]\n"
               "    return reduce(mixed, 1)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def reduce(xs, reduction):\n"
               "    if reduction == 0:\n"
               "        return xs\n"
               "    total = 0.0\n"
               "    for x in xs:\n"
               "        total += x\n"
               "    return total if reduction == 2 else total / len(xs)\n"
               "def solve(loss_a, loss_b, lam, reduction):\n"
               "    total = 0.0\n"
               "    for l in lam:\n"
               "        total += l\n"
               "    m = total / len(lam)\n"
               "    if reduction == 0:\n"
               "        return [m * a + (1 - m) * b for a, b in zip(loss_a, loss_b)]\n"
               "    return m * reduce(loss_a, reduction) + (1 - m) * reduce(loss_b, reduction)\n"},
              FAILMAP_REPAIRED(repaired,
               "def reduce(xs, reduction):\n"
               "    if reduction == 0:\n"
               "        return xs\n"
               "    total = 0.0\n"
               "    for x in xs:\n"
               "        total += x\n"
               "    return total if reduction == 2 else total / len(xs)\n"
               "def solve(loss_a, loss_b, lam, reduction):\n"
               "    mixed = [l * a + (1 - l) * b for a, b, l in zip(loss_a, loss_b, lam)]\n"
               "    return reduce(mixed, reduction)\n"),
          }},
      .fixtures =
          {
              {"sum over one lambda", "[2.0]*(N+1),[4.0]*(N+1),[0.25]*(N+1),2", "3.5*(N+1)"},
              {"no reduction, one lambda", "[2.0]*(N+1),[4.0]*(N+1),[0.25]*(N+1),0", "[3.5]*(N+1)"},
              {"sum, another second loss", "[2.0]*(N+1),[8.0]*(N+1),[0.25]*(N+1),2", "6.5*(N+1)"},
              {"sum over per-sample lambdas", "[4.0,0.0]*N,[0.0,4.0]*N,[0.25,0.75]*N,2", "2.0*N"},
              {"mean over per-sample lambdas", "[4.0,0.0]*N,[0.0,4.0]*N,[0.25,0.75]*N,1", "1.0"},
              {"sum over swapped lambdas", "[4.0,0.0]*N,[0.0,4.0]*N,[0.75,0.25]*N,2", "6.0*N"},
              {"sum, another first loss", "[6.0]*(N+1),[4.0]*(N+1),[0.25]*(N+1),2", "4.5*(N+1)"},
          },
  };
  return k_mechanism;
}
