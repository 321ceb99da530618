// Masked advantage whitening
// ==========================
//
// The failure. PPO normalises the advantages of a batch to zero mean and
// unit variance before the policy loss. In language-model RL the batch is a
// padded tensor of responses, and only positions where response_mask is 1
// are actions; padding positions hold zeros or stale values. SkyRL's issue
// 1305 reports that normalize_advantages_dict takes the variance over the
// masked positions but the mean with a plain `advantages.mean()` over every
// element, so padding pulls the mean and shifts every normalised advantage.
// The broken path here is the naive whitening over the whole padded tensor,
// `(a - a.mean()) / a.std()` (population), where padding enters both
// statistics: valid advantages [-1, 1] padded with two zeros are divided by
// sqrt(2 / 4) instead of 1.
//
// Why the unsuccessful fix fails. Masking the variance but not the mean, the
// code the issue quotes, is right when the padding happens to have the same
// mean as the valid positions (zero padding around zero-mean advantages) and
// wrong otherwise: valid [0, 0, 0, 0, 5] padded with five zeros get mean 0.5
// instead of 1.
//
// Why the repair holds. Both statistics run over the masked positions only:
// mean = sum of valid a / count, var = sum of valid (a - mean)**2 / count
// (population, as SkyRL's normalisation), and each valid advantage becomes
// (a - mean) / sqrt(var). Sums run left to right in C++ as in the Python,
// squares are products, and the square root is the correctly rounded
// std::sqrt, so the doubles agree; the fixtures give exact means and square
// variances.
//
// Source: https://github.com/NovaSky-AI/SkyRL/issues/1305
#include <algorithm>
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Statistics { Unmasked, MaskedVarianceOnly, Masked };

Result<Value> whitened(const std::vector<double>& advantages, args::IntListView mask, Statistics statistics) {
  const std::size_t pairs = std::min(advantages.size(), mask.size());  // zip truncates
  double total = 0.0;
  std::int64_t count = 0;
  if (statistics == Statistics::Masked) {
    for (std::size_t i = 0; i < pairs; ++i) {
      if (mask[i] != 0) {
        total += advantages[i];
        ++count;
      }
    }
  } else {
    for (double a : advantages) total += a;
    count = static_cast<std::int64_t>(advantages.size());
  }
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(count)));
  double square = 0.0;
  std::int64_t square_count = 0;
  if (statistics == Statistics::Unmasked) {
    for (double a : advantages) square += (a - mean) * (a - mean);
    square_count = static_cast<std::int64_t>(advantages.size());
  } else {
    for (std::size_t i = 0; i < pairs; ++i) {
      if (mask[i] != 0) {
        square += (advantages[i] - mean) * (advantages[i] - mean);
        ++square_count;
      }
    }
  }
  FAILMAP_TRY_ASSIGN(auto variance, args::divide(square, static_cast<double>(square_count)));
  const double std_dev = std::sqrt(variance);
  std::vector<double> out;
  for (std::size_t i = 0; i < pairs; ++i) {
    if (mask[i] == 0) continue;
    FAILMAP_TRY_ASSIGN(auto z, args::divide(advantages[i] - mean, std_dev));
    out.push_back(z);
  }
  return args::float_list_value(out);
}

Result<Value> broken(std::vector<double> advantages, args::IntListView mask) {
  return whitened(advantages, mask, Statistics::Unmasked);
}

Result<Value> unsuccessful(std::vector<double> advantages, args::IntListView mask) {
  return whitened(advantages, mask, Statistics::MaskedVarianceOnly);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<double> advantages, args::IntListView mask) {
  return whitened(advantages, mask, Statistics::Masked);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_masked_advantage_whitening() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "masked-advantage-whitening",
      .title = "Masked advantage whitening",
      .source = "https://github.com/NovaSky-AI/SkyRL/issues/1305",
      .evaluation_group = {"masked-normalization"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Padding positions enter the advantage normalisation statistics",
              .summary = "Padding positions enter the advantage normalisation statistics.",
              .root_cause = "The whitening statistics of a padded batch of responses are taken over every element of "
                            "the tensor, so padding shifts the mean and shrinks or inflates the variance.",
              .failure = "The broken path whitens with the mean and population variance of the whole padded list.",
              .unsuccessful_approach = "Masking the variance but keeping the unmasked mean is right only when the "
                                       "padding has the same mean as the real actions.",
              .contract = "Over the positions where mask is non-zero: mean = sum(a) / count, var = sum((a - mean) * "
                          "(a - mean)) / count; return (a - mean) / math.sqrt(var) for each such position, in order.",
              .why_it_matters = "Every policy-gradient step is scaled and shifted by these statistics; padding that "
                                "moves them changes which actions are reinforced, varying with the padding length.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(advantages, mask):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for a in advantages:\n"
               "        total += a\n"
               "    mean = total / len(advantages)\n"
               "    square = 0.0\n"
               "    for a in advantages:\n"
               "        square += (a - mean) * (a - mean)\n"
               "    std = math.sqrt(square / len(advantages))\n"
               "    return [(a - mean) / std for a, m in zip(advantages, mask) if m]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(advantages, mask):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    for a in advantages:\n"
               "        total += a\n"
               "    mean = total / len(advantages)\n"
               "    square = 0.0\n"
               "    count = 0\n"
               "    for a, m in zip(advantages, mask):\n"
               "        if m:\n"
               "            square += (a - mean) * (a - mean)\n"
               "            count += 1\n"
               "    std = math.sqrt(square / count)\n"
               "    return [(a - mean) / std for a, m in zip(advantages, mask) if m]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(advantages, mask):\n"
               "    import math\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for a, m in zip(advantages, mask):\n"
               "        if m:\n"
               "            total += a\n"
               "            count += 1\n"
               "    mean = total / count\n"
               "    square = 0.0\n"
               "    for a, m in zip(advantages, mask):\n"
               "        if m:\n"
               "            square += (a - mean) * (a - mean)\n"
               "    std = math.sqrt(square / count)\n"
               "    return [(a - mean) / std for a, m in zip(advantages, mask) if m]\n"),
          }},
      .fixtures =
          {
              {"zero padding around zero-mean values", "[-1.0]*N+[1.0]*N+[0.0,0.0],[1]*(2*N)+[0,0]",
               "[-1.0]*N+[1.0]*N"},
              {"no padding", "[-3.0]*N+[3.0]*N,[1]*(2*N)", "[-1.0]*N+[1.0]*N"},
              {"skewed values, zero padding", "[0.0,0.0,0.0,0.0,5.0]*N+[0.0]*(5*N),[1]*(5*N)+[0]*(5*N)",
               "[-0.5,-0.5,-0.5,-0.5,2.0]*N"},
              {"negative spike, zero padding", "[0.0,0.0,0.0,0.0,-5.0]*N+[0.0]*(5*N),[1]*(5*N)+[0]*(5*N)",
               "[0.5,0.5,0.5,0.5,-2.0]*N"},
              {"padding that cancels", "[-1.0]*N+[1.0]*N+[3.0,-3.0],[1]*(2*N)+[0,0]", "[-1.0]*N+[1.0]*N"},
              {"the mask selects the tail", "[-1.0]*N+[1.0]*N+[3.0,-3.0],[0]*(2*N)+[1,1]", "[1.0,-1.0]"},
              {"padding inside the responses", "[1.0,9.0,-1.0]*N,[1,0,1]*N", "[1.0,-1.0]*N"},
          },
  };
  return k_mechanism;
}
