// Pad id equal to the end token
// =============================
//
// The failure. Many causal language models have no padding token, and the
// usual recipe sets tokenizer.pad_token = tokenizer.eos_token. The language
// modelling collator then builds the labels by replacing every position
// whose id equals the pad id with -100, the index the loss ignores. Since
// the pad id is the EOS id, every row's real end token is masked out along
// with the padding: the mask is off by one token per row, and the model is
// never trained to produce EOS, so generation does not stop.
// huggingface/transformers issue 23530 reports "all EOS tokens in the labels
// are overwritten with -100, instead of just the ones used for padding".
//
// Why the unsuccessful fix fails. The workaround reported in the thread of
// huggingface/trl pull request 456 (https://github.com/huggingface/trl/pull/456)
// subclasses the collator so that it no longer replaces the EOS (= pad)
// tokens with -100. The real EOS is supervised again, but so is every
// padding position: the loss now trains the model to emit EOS after EOS for
// as many positions as the batch happens to be padded. Right only for batches
// without padding.
//
// Why the repair holds. Padding is what the tokenizer's attention mask says
// it is, not a token id: labels are the input ids with -100 exactly where
// the attention mask is 0. The real end token keeps its label and the pads,
// whatever their id, are ignored. Integer comparisons only; zip() truncates
// rows as in the Python.
//
// Source: https://github.com/huggingface/transformers/issues/23530
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

constexpr std::int64_t k_pad_id = 2;  // == the EOS id
constexpr std::int64_t k_ignore = -100;

using Rows = std::vector<std::vector<std::int64_t>>;

enum class Ignore { PadId, Nothing, Unattended };

Result<Value> labels(const Rows& ids, const Rows& mask, Ignore ignore) {
  Value::List out;
  // Only the repair zips with the mask; the other two visit every row of ids.
  const std::size_t rows = ignore == Ignore::Unattended ? std::min(ids.size(), mask.size()) : ids.size();
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& row_ids = ids[r];
    // mask may have fewer rows than ids: only the repair, which zips, reads it.
    const std::vector<std::int64_t>* row_mask = ignore == Ignore::Unattended ? &mask[r] : nullptr;
    const std::size_t cols = row_mask ? std::min(row_ids.size(), row_mask->size()) : row_ids.size();
    std::vector<std::int64_t> row;
    for (std::size_t c = 0; c < cols; ++c) {
      bool ignored = false;
      if (ignore == Ignore::PadId) ignored = row_ids[c] == k_pad_id;
      if (row_mask) ignored = (*row_mask)[c] == 0;
      row.push_back(ignored ? k_ignore : row_ids[c]);
    }
    out.push_back(args::int_list_value(row));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(const Rows& ids, const Rows& mask) { return labels(ids, mask, Ignore::PadId); }
Result<Value> unsuccessful(const Rows& ids, const Rows& mask) { return labels(ids, mask, Ignore::Nothing); }
#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& ids, const Rows& mask) { return labels(ids, mask, Ignore::Unattended); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_pad_id_masks_eos() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "pad-id-masks-eos",
      .title = "Pad id equal to the end token",
      .source = "https://github.com/huggingface/transformers/issues/23530",
      .evaluation_group = {"end-token-supervision"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Masking the pad id also masks every real end token",
              .summary = "Masking the pad id also masks every real end token.",
              .root_cause = "The pad token is the EOS token, and the labels mask padding by token id, so the real "
                            "EOS of every row is ignored too.",
              .failure = "The broken path sets every position whose id equals the pad id to -100, and the model "
                         "is never trained to end a sequence.",
              .unsuccessful_approach = "Not replacing the EOS (= pad) ids with -100 supervises the real EOS but "
                                       "also trains on every padding position.",
              .contract = "With pad id = EOS id = 2, return the labels: the input ids, with -100 exactly where the "
                          "attention mask is 0.",
              .why_it_matters = "A fine-tuned model that never sees a supervised end token generates until the "
                                "length limit, and one trained on padding learns to repeat EOS.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(ids, mask):\n"
               "    pad_id = 2\n"
               "    return [[-100 if t == pad_id else t for t in row] for row in ids]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(ids, mask):\n"
               "    return [[t for t in row] for row in ids]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(ids, mask):\n"
               "    return [[t if m else -100 for t, m in zip(row, row_mask)] for row, row_mask in zip(ids, mask)]\n"),
          }},
      .fixtures =
          {
              {"padded batch", "[[5]*N+[2],[6,2]+[2]*N],[[1]*(N+1),[1,1]+[0]*N]", "[[5]*N+[2],[6,2]+[-100]*N]"},
              {"no padding", "[[5]*N+[2]],[[1]*(N+1)]", "[[5]*N+[2]]"},
              {"no end token", "[[5]*N],[[1]*N]", "[[5]*N]"},
              {"end token inside the text", "[[5,2,6]*N+[2]],[[1]*(3*N+1)]", "[[5,2,6]*N+[2]]"},
              {"a row of padding", "[[2]*N],[[0]*N]", "[[-100]*N]"},
              {"right-padded pair", "[[7,2,2],[7,8,2]],[[1,1,0],[1,1,1]]", "[[7,2,-100],[7,8,2]]"},
              {"complete rows", "[[5,2]]*N,[[1,1]]*N", "[[5,2]]*N"},
          },
  };
  return k_mechanism;
}
