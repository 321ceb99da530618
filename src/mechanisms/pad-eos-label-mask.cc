// Pad EOS label mask
// ==================
//
// The failure. Causal language-model fine-tuning copies input_ids into
// labels and pads the batch. Padded positions must not be trained on, and
// the end-of-sequence token at the end of each real sequence must be, or the
// model never learns to stop (reported in trl and in the Hugging Face llm-course). The
// broken path keeps every label: padding positions are trained and counted
// in the mean, so the loss depends on the padding the collator added.
//
// Why the unsuccessful fix fails. The usual fix sets a label to -100
// wherever it equals tokenizer.pad_token_id. Most decoder-only tokenizers
// have no pad token and are given pad_token = eos_token, so matching the pad
// id also masks the real EOS of every sequence, and any real token that
// shares the id (a chat marker such as <|im_end|>). trl PR 6357 fixed GKD
// and GOLD, which built their masks "by matching the pad id"; the same rule
// is modelled here. It is right exactly when the pad id never occurs as a
// real token.
//
// Why the repair holds. Which positions are padding is already known: the
// attention mask is 0 exactly there. The repair keeps a position if and only
// if its attention mask is set, whatever its token id, and averages the
// kept losses over their count. Rows and positions pair up as Python's zip
// pairs them (to the shortest); the C++ adds in the same order.
//
// Source: https://github.com/huggingface/trl/pull/6357
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using IntRows = std::vector<std::vector<std::int64_t>>;
using FloatRows = std::vector<std::vector<double>>;

enum class Keep { Everything, NotPadId, AttentionMask };

Result<Value> masked_mean(const IntRows& labels, const IntRows& mask, const FloatRows& losses, std::int64_t pad_id,
                          Keep keep) {
  double total = 0.0;
  std::int64_t count = 0;
  const std::size_t rows = std::min({labels.size(), mask.size(), losses.size()});
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t cols = std::min({labels[r].size(), mask[r].size(), losses[r].size()});
    for (std::size_t c = 0; c < cols; ++c) {
      const bool kept = keep == Keep::Everything ? true
                        : keep == Keep::NotPadId ? labels[r][c] != pad_id
                                                 : mask[r][c] != 0;
      if (!kept) continue;
      total += losses[r][c];
      ++count;
    }
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(count)));
  return Value::floating(out);
}

Result<Value> broken(const IntRows& labels, const IntRows& mask, const FloatRows& losses, std::int64_t pad_id) {
  return masked_mean(labels, mask, losses, pad_id, Keep::Everything);
}
Result<Value> unsuccessful(const IntRows& labels, const IntRows& mask, const FloatRows& losses, std::int64_t pad_id) {
  return masked_mean(labels, mask, losses, pad_id, Keep::NotPadId);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const IntRows& labels, const IntRows& mask, const FloatRows& losses, std::int64_t pad_id) {
  return masked_mean(labels, mask, losses, pad_id, Keep::AttentionMask);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_pad_eos_label_mask() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "pad-eos-label-mask",
      .title = "Pad EOS label mask",
      .source = "https://github.com/huggingface/trl/pull/6357",
      .evaluation_group = {"pad-token-masking"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Labels are masked by the pad id, which is also the EOS id",
              .summary = "Labels are masked by the pad id, which is also the EOS id.",
              .root_cause = "Padding is recognised by its token id, but with pad_token = eos_token that id also "
                            "marks the real end of every sequence.",
              .failure = "The broken path masks nothing: padding positions are trained on and counted in the "
                         "mean loss.",
              .unsuccessful_approach = "Setting every label equal to pad_token_id to -100 also masks each real "
                                       "EOS, so the model never learns to stop.",
              .contract = "Return the mean loss over positions whose attention mask is set (padding excluded, "
                          "real tokens kept whatever their id).",
              .why_it_matters = "A model trained without its EOS labels generates until the length limit, and the "
                                "defect is invisible in the loss curve.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(labels, mask, losses, pad_id):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for row_labels, row_mask, row_losses in zip(labels, mask, losses):\n"
               "        for label, keep, loss in zip(row_labels, row_mask, row_losses):\n"
               "            total += loss\n"
               "            count += 1\n"
               "    return total / count\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(labels, mask, losses, pad_id):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for row_labels, row_mask, row_losses in zip(labels, mask, losses):\n"
               "        for label, keep, loss in zip(row_labels, row_mask, row_losses):\n"
               "            if label != pad_id:\n"
               "                total += loss\n"
               "                count += 1\n"
               "    return total / count\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(labels, mask, losses, pad_id):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for row_labels, row_mask, row_losses in zip(labels, mask, losses):\n"
               "        for label, keep, loss in zip(row_labels, row_mask, row_losses):\n"
               "            if keep:\n"
               "                total += loss\n"
               "                count += 1\n"
               "    return total / count\n"),
          }},
      .fixtures =
          {
              {"eos kept, padding dropped", "[[5,7,2,2,2]],[[1,1,1,0,0]],[[1.0*N,2.0,3.0,8.0,8.0]],2",
               "(1.0*N+5.0)/3"},
              {"no padding, no eos", "[[5,7]],[[1,1]],[[2.0*N,4.0]],2", "(2.0*N+4.0)/2"},
              {"pad id distinct from eos", "[[5,1,0,0]],[[1,1,0,0]],[[1.0,3.0*N,6.0,6.0]],0", "(1.0+3.0*N)/2"},
              {"eos at full length", "[[4,2]],[[1,1]],[[2.0,6.0*N]],2", "(2.0+6.0*N)/2"},
              {"ragged batch", "[[3,2,2],[3,4,2]],[[1,1,0],[1,1,1]],[[1.0,5.0,9.0*N],[2.0,2.0,4.0*N]],2",
               "(10.0+4.0*N)/5"},
              {"padding with zero loss", "[[3,2,2]],[[1,0,0]],[[4.0*N,0.0,0.0]],2", "4.0*N"},
              {"real token equal to the pad id", "[[2,5,2]],[[1,1,1]],[[3.0,3.0*N,3.0]],2", "(6.0+3.0*N)/3"},
          },
  };
  return k_mechanism;
}
