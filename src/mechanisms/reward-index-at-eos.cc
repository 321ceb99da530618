// Reward at the end token
// =======================
//
// The failure. A reward model scores a response from the hidden state at
// its end-of-sequence token; the batch is right-padded after it. Reading the
// score at the last position of the padded row reads a padding token:
// EleutherAI/gpt-neox PR 1285 reports its reward-model training "doing the
// reward value on the last token in the sequence, not the EOS token" and
// fixes the off-by-one. The broken path here is that index, len(row) - 1.
//
// Why the unsuccessful fix fails. Taking the last non-padding position,
// attention_mask.sum() - 1 with the mask built as token != pad_id, finds the
// EOS when padding has its own id, but many setups pad with the EOS token
// itself (`tokenizer.pad_token = tokenizer.eos_token`, as in the TRL
// examples): the EOS then counts as padding and the index lands one token
// before it, and a row with a second end-like token after the EOS is scored
// past its end. (Constructed: the usual first fix.)
//
// Why the repair holds. The score is read at the first eos_id of the row;
// a row without one (generation cut at the length limit) is scored at its
// last token that is not padding. Integer scanning only, the same in C++.
//
// Source: https://github.com/EleutherAI/gpt-neox/pull/1285
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Index { LastPosition, NonPadCount, FirstEos };

Result<Value> indices(const std::vector<std::vector<std::int64_t>>& rows, std::int64_t eos_id, std::int64_t pad_id,
                      Index mode) {
  std::vector<std::int64_t> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    const auto n = static_cast<std::int64_t>(row.size());
    if (mode == Index::LastPosition) {
      out.push_back(n - 1);
      continue;
    }
    if (mode == Index::NonPadCount) {
      std::int64_t length = 0;
      for (std::int64_t token : row) length += token != pad_id ? 1 : 0;
      out.push_back(length - 1);
      continue;
    }
    std::int64_t index = n - 1;
    while (index > 0 && row[static_cast<std::size_t>(index)] == pad_id) --index;
    for (std::int64_t i = 0; i < n; ++i) {
      if (row[static_cast<std::size_t>(i)] == eos_id) {
        index = i;
        break;
      }
    }
    out.push_back(index);
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::vector<std::vector<std::int64_t>> rows, std::int64_t eos_id, std::int64_t pad_id) {
  return indices(rows, eos_id, pad_id, Index::LastPosition);
}

Result<Value> unsuccessful(std::vector<std::vector<std::int64_t>> rows, std::int64_t eos_id, std::int64_t pad_id) {
  return indices(rows, eos_id, pad_id, Index::NonPadCount);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<std::vector<std::int64_t>> rows, std::int64_t eos_id, std::int64_t pad_id) {
  return indices(rows, eos_id, pad_id, Index::FirstEos);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_reward_index_at_eos() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "reward-index-at-eos",
      .title = "Reward at the end token",
      .source = "https://github.com/EleutherAI/gpt-neox/pull/1285",
      .evaluation_group = {"end-token-supervision"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The reward is read at the last padded position instead of the end token",
              .summary = "The reward is read at the last padded position instead of the end token.",
              .root_cause = "The reward model's score is taken at the last position of the right-padded row, which "
                            "is padding whenever the response is shorter than the row.",
              .failure = "The broken path returns len(row) - 1 for every row.",
              .unsuccessful_approach = "Counting non-padding tokens finds the end token only when padding has its "
                                       "own id; padding with the EOS id puts the index one token before it.",
              .contract = "Return, per row, the index of the first token equal to eos_id; a row without one is "
                          "scored at its last token that is not pad_id.",
              .why_it_matters = "A reward read from padding is noise the policy is then optimised against; the "
                                "reward model learns nothing from the response's last token.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(rows, eos_id, pad_id):\n"
               "    return [len(row) - 1 for row in rows]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(rows, eos_id, pad_id):\n"
               "    out = []\n"
               "    for row in rows:\n"
               "        length = 0\n"
               "        for token in row:\n"
               "            if token != pad_id:\n"
               "                length += 1\n"
               "        out.append(length - 1)\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(rows, eos_id, pad_id):\n"
               "    out = []\n"
               "    for row in rows:\n"
               "        index = len(row) - 1\n"
               "        while index > 0 and row[index] == pad_id:\n"
               "            index -= 1\n"
               "        for i, token in enumerate(row):\n"
               "            if token == eos_id:\n"
               "                index = i\n"
               "                break\n"
               "        out.append(index)\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"padding with its own id", "[[7]*N+[2,0,0]],2,0", "[N]"},
              {"padding with the end token", "[[7]*N+[2,2,2]],2,2", "[N]"},
              {"cut at the length limit", "[[7]*N],2,0", "[N-1]"},
              {"the end token is 3", "[[7]*N+[2,3,0]],3,0", "[N+1]"},
              {"the end token is 2", "[[7]*N+[2,3,0]],2,0", "[N]"},
              {"no end token, padded", "[[7]*N+[0,0]],2,0", "[N-1]"},
              {"no end token, padding id unused", "[[7]*N+[0,0]],2,9", "[N+1]"},
          },
  };
  return k_mechanism;
}
