// KL penalty reduction
// ====================
//
// The failure. RLHF rewards a sampled response with the reward model's score
// minus kl_coef times the KL divergence of the policy from the reference
// model over the response, estimated per token as logprob - ref_logprob and
// summed over the response's tokens (TRL's sequence-level KL is
// `kl.sum(1)`). The per-token KL tensor is padded; the padding positions hold
// whatever the model produced there. radixark/miles PR 557 reports KL
// entering the REINFORCE++ returns at padded positions and fixes it by
// multiplying the KL by the loss mask first. The broken path here reduces
// the padded row as it is, averaging it over every position: padding both
// adds its KL and dilutes the real tokens'.
//
// Why the unsuccessful fix fails. Masking the row but averaging over the real
// tokens (a masked mean, the reduction the policy loss uses) removes the
// padding, but a mean is not the sequence's KL: a response of L tokens is
// penalised 1/L of its divergence, so long responses drift from the
// reference almost unpenalised. It is right only for one-token responses.
// (Constructed: the loss's masked_mean reused for the penalty.)
//
// Why the repair holds. The penalty sums the per-token KL over the positions
// where the mask is non-zero, left to right, and the reward is score -
// kl_coef * sum, as in the contract. The C++ sums and multiplies in the
// Python's order; halves and whole numbers keep the fixtures exact.
//
// Source: https://github.com/radixark/miles/pull/557
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Reduction { MeanOfPaddedRow, MaskedMean, MaskedSum };

Result<Value> rewards(const std::vector<std::vector<double>>& kl, const std::vector<std::vector<std::int64_t>>& mask,
                      const std::vector<double>& scores, double kl_coef, Reduction reduction) {
  std::size_t rows = std::min(kl.size(), scores.size());
  if (reduction != Reduction::MeanOfPaddedRow) rows = std::min(rows, mask.size());
  std::vector<double> out;
  out.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& row = kl[r];
    double total = 0.0;
    std::int64_t count = 0;
    if (reduction == Reduction::MeanOfPaddedRow) {
      for (double k : row) total += k;
      count = static_cast<std::int64_t>(row.size());
    } else {
      const std::size_t n = std::min(row.size(), mask[r].size());
      for (std::size_t i = 0; i < n; ++i) {
        if (mask[r][i] != 0) {
          total += row[i];
          ++count;
        }
      }
    }
    double penalty_base = total;
    if (reduction != Reduction::MaskedSum) {
      FAILMAP_TRY_ASSIGN(penalty_base, args::divide(total, static_cast<double>(count)));
    }
    out.push_back(scores[r] - kl_coef * penalty_base);
  }
  return args::float_list_value(out);
}

Result<Value> broken(std::vector<std::vector<double>> kl, std::vector<std::vector<std::int64_t>> mask,
                     std::vector<double> scores, double kl_coef) {
  return rewards(kl, mask, scores, kl_coef, Reduction::MeanOfPaddedRow);
}

Result<Value> unsuccessful(std::vector<std::vector<double>> kl, std::vector<std::vector<std::int64_t>> mask,
                           std::vector<double> scores, double kl_coef) {
  return rewards(kl, mask, scores, kl_coef, Reduction::MaskedMean);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<std::vector<double>> kl, std::vector<std::vector<std::int64_t>> mask,
                       std::vector<double> scores, double kl_coef) {
  return rewards(kl, mask, scores, kl_coef, Reduction::MaskedSum);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_kl_penalty_reduction() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "kl-penalty-reduction",
      .title = "KL penalty reduction",
      .source = "https://github.com/radixark/miles/pull/557",
      .evaluation_group = {"kl-penalty"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The KL penalty is averaged over a padded row instead of summed over the response",
              .summary = "The KL penalty is averaged over a padded row instead of summed over the response.",
              .root_cause = "The per-token KL of a padded batch is reduced over every position, so padding adds its "
                            "KL and the mean divides the response's divergence by the row length.",
              .failure = "The broken path penalises score - kl_coef * mean(row) over the whole padded row.",
              .unsuccessful_approach = "A masked mean drops the padding but still divides the sequence's KL by its "
                                       "length, under-penalising long responses.",
              .contract = "Return, per response, score - kl_coef * (sum of the per-token KL over the positions where "
                          "the mask is non-zero, summed left to right).",
              .why_it_matters = "The KL penalty is what keeps the policy near the reference; reduced wrongly it "
                                "varies with padding and length, and long responses escape it.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(kl, mask, scores, kl_coef):\n"
               "    rewards = []\n"
               "    for row, score in zip(kl, scores):\n"
               "        total = 0.0\n"
               "        for k in row:\n"
               "            total += k\n"
               "        rewards.append(score - kl_coef * (total / len(row)))\n"
               "    return rewards\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(kl, mask, scores, kl_coef):\n"
               "    rewards = []\n"
               "    for row, row_mask, score in zip(kl, mask, scores):\n"
               "        total = 0.0\n"
               "        count = 0\n"
               "        for k, m in zip(row, row_mask):\n"
               "            if m:\n"
               "                total += k\n"
               "                count += 1\n"
               "        rewards.append(score - kl_coef * (total / count))\n"
               "    return rewards\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(kl, mask, scores, kl_coef):\n"
               "    rewards = []\n"
               "    for row, row_mask, score in zip(kl, mask, scores):\n"
               "        total = 0.0\n"
               "        for k, m in zip(row, row_mask):\n"
               "            if m:\n"
               "                total += k\n"
               "        rewards.append(score - kl_coef * total)\n"
               "    return rewards\n"),
          }},
      .fixtures =
          {
              {"padding with its own KL", "[[1.0*N,2.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.5", "[9.0-0.5*N]"},
              {"no padding", "[[1.0*N,2.0,4.0,16.0]],[[1,1,1,1]],[10.0],0.5", "[-1.0-0.5*N]"},
              {"a one-token response", "[[2.0*N,9.0]],[[1,0]],[4.0],0.5", "[4.0-1.0*N]"},
              {"a smaller coefficient", "[[1.0*N,2.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.25", "[9.5-0.25*N]"},
              {"another score", "[[1.0*N,2.0,4.0,16.0]],[[1,1,0,0]],[2.0*N+1.0],0.5", "[1.5*N]"},
              {"a larger second token", "[[1.0*N,6.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.5", "[7.0-0.5*N]"},
              {"two responses", "[[1.0*N,1.0*N],[4.0,0.0]],[[1,1],[1,0]],[0.0,1.0],1.0", "[-2.0*N,-3.0]"},
          },
  };
  return k_mechanism;
}
