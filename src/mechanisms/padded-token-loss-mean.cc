// Padded token loss mean
// ======================
//
// The failure. Sequences of different lengths are padded to a rectangle and
// the model produces a loss at every position, padding included. An
// attention mask (1 = real token, 0 = padding) says which positions count.
// The broken path takes the plain mean of the whole loss rectangle, so the
// loss depends on how much padding the collator added: losses
// [[1, 1, 0, 0], [3, 3, 3, 3]] with mask [[1, 1, 0, 0], [1, 1, 1, 1]] give
// 1.75 where the mean over the six real tokens is 14 / 6 = 2.3333333333333335.
// Padding positions often carry a loss of exactly zero (ignore_index), which
// makes the bug look like a harmless scale factor; it is not, because the
// factor changes from batch to batch with the padding ratio.
//
// Why the unsuccessful fix fails. Applying the mask inside each sequence and
// then averaging the per-sequence means removes the padding but weights every
// sequence equally, whatever its length: the fixture gives (1 + 3) / 2 = 2.0.
// It is right only when every sequence has the same number of real tokens.
//
// Why the repair holds. One running sum over unmasked positions and one
// running count of them, divided once: the denominator is the number of real
// tokens in the batch, which is what the contract averages over. Python's zip
// truncates to the shorter of loss row and mask row; the C++ does the same.
//
// transformers PR 251 restricted the token-classification loss to attention_mask == 1.
// Source: https://github.com/huggingface/transformers/pull/251
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using FloatRows = std::vector<std::vector<double>>;
using IntRows = std::vector<std::vector<std::int64_t>>;

struct Batch {
  const FloatRows& losses;
  const IntRows& mask;
  /// Python zip(losses, mask): the number of row pairs visited.
  std::size_t rows() const { return std::min(losses.size(), mask.size()); }
  /// zip(row, row_mask) for row pair r.
  std::size_t cols(std::size_t r) const { return std::min(losses[r].size(), mask[r].size()); }
};

Result<Value> broken(const FloatRows& losses, const IntRows& mask) {
  const Batch b{losses, mask};
  double total = 0.0;
  std::int64_t count = 0;
  for (const std::vector<double>& row : b.losses) {
    for (double loss : row) total += loss;
    FAILMAP_TRY_ASSIGN(count, checked_add(count, args::length(row)));
  }
  FAILMAP_TRY_ASSIGN(auto r, args::divide(total, static_cast<double>(count)));
  return Value::floating(r);
}

Result<Value> unsuccessful(const FloatRows& losses, const IntRows& mask) {
  const Batch b{losses, mask};
  double total = 0.0;
  for (std::size_t r = 0; r < b.rows(); ++r) {
    double row_total = 0.0;
    std::int64_t row_count = 0;
    for (std::size_t c = 0; c < b.cols(r); ++c) {
      if (b.mask[r][c] == 0) continue;
      row_total += b.losses[r][c];
      ++row_count;
    }
    FAILMAP_TRY_ASSIGN(auto mean, args::divide(row_total, static_cast<double>(row_count)));
    total += mean;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(b.losses.size())));
  return Value::floating(out);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const FloatRows& losses, const IntRows& mask) {
  const Batch b{losses, mask};
  double total = 0.0;
  std::int64_t count = 0;
  for (std::size_t r = 0; r < b.rows(); ++r) {
    for (std::size_t c = 0; c < b.cols(r); ++c) {
      if (b.mask[r][c] == 0) continue;
      total += b.losses[r][c];
      ++count;
    }
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(count)));
  return Value::floating(out);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_padded_token_loss_mean() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "padded-token-loss-mean",
      .title = "Padded token loss mean",
      .source = "https://github.com/huggingface/transformers/pull/251",
      .evaluation_group = {"loss-normalization"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Padding positions are counted in the token loss mean",
              .summary = "Padding positions are counted in the token loss mean.",
              .root_cause = "The loss is averaged over the whole padded rectangle, so the attention mask never "
                            "reaches the denominator.",
              .failure = "The broken path divides the summed loss by every position, padding included, and the "
                         "result moves with the amount of padding in the batch.",
              .unsuccessful_approach = "Masking within each sequence and averaging the per-sequence means gives "
                                       "short sequences the same weight as long ones.",
              .contract = "Return the mean token loss over unmasked positions only: the sum of losses where the mask "
                          "is set divided by the number of such positions.",
              .why_it_matters = "A loss that depends on the collator's padding makes runs with different batch "
                                "shapes incomparable and biases training toward short sequences.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, mask):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for row in losses:\n"
               "        for loss in row:\n"
               "            total += loss\n"
               "        count += len(row)\n"
               "    return total / count\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, mask):\n"
               "    total = 0.0\n"
               "    for row, row_mask in zip(losses, mask):\n"
               "        row_total = 0.0\n"
               "        row_count = 0\n"
               "        for loss, keep in zip(row, row_mask):\n"
               "            if keep:\n"
               "                row_total += loss\n"
               "                row_count += 1\n"
               "        total += row_total / row_count\n"
               "    return total / len(losses)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, mask):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for row, row_mask in zip(losses, mask):\n"
               "        for loss, keep in zip(row, row_mask):\n"
               "            if keep:\n"
               "                total += loss\n"
               "                count += 1\n"
               "    return total / count\n"),
          }},
      .fixtures =
          {
              {"padded tail", "[[1.0*N,1.0*N,0.0,0.0],[3.0*N,3.0*N,3.0*N,3.0*N]],[[1,1,0,0],[1,1,1,1]]", "14.0*N/6"},
              {"no padding", "[[2.0*N,4.0]],[[1,1]]", "(2.0*N+4.0)/2"},
              {"equal real lengths", "[[1.0,3.0,9.0*N],[5.0,7.0,9.0*N]],[[1,1,0],[1,1,0]]", "4.0"},
              {"padding with nonzero loss", "[[2.0,5.0*N]],[[1,0]]", "2.0"},
              {"ragged padding", "[[4.0*N,0.0,0.0],[1.0,1.0,1.0]],[[1,0,0],[1,1,1]]", "(4.0*N+3.0)/4"},
              {"single real token", "[[7.0*N,0.0]],[[1,0]]", "7.0*N"},
              {"all positions kept", "[[1.0,2.0],[3.0*N,4.0*N]],[[1,1],[1,1]]", "(3.0+7.0*N)/4"},
          },
  };
  return k_mechanism;
}
