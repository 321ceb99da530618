// Position ids under left padding
// ===============================
//
// The failure. Batched generation pads prompts on the left so that every
// row ends at its last real token. A model with absolute position
// embeddings that is not given position_ids builds them as
// arange(sequence_length), so the real tokens of a padded row start at the
// number of pads instead of 0 and the model sees a prompt shifted in
// position: huggingface/transformers issue 21080 shows GPT-2's batched
// outputs differing from unbatched ones because "the position id for the
// word I will be 1" once a pad is prepended. generate() itself derives the
// ids from the attention mask (cumsum - 1, pads filled with 1).
//
// Why the unsuccessful fix fails. Subtracting each row's number of pads
// from arange corrects left-padded rows, but it encodes an assumption about
// where the padding is: a right-padded row (the training collator's default)
// or a row padded on both sides gets negative positions for its real
// tokens. (Constructed: a shortcut for the padding side at hand, not a step
// shown in the thread.)
//
// Why the repair holds. Positions come from the attention mask itself, as
// transformers does: the running count of real tokens minus one, so every
// row's real tokens are numbered 0, 1, 2, ... wherever its pads are. Pads get
// 1, which the mask hides from attention; the mechanism returns the position
// ids of the real tokens of each row, which is all the model's output depends
// on. Integer arithmetic only, checked in C++.
//
// Source: https://github.com/huggingface/transformers/issues/21080
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

enum class Positions { Arange, MinusPads, FromMask };

Result<Value> real_positions(const Rows& mask, Positions how) {
  Value::List out;
  for (const std::vector<std::int64_t>& row : mask) {
    std::int64_t pads = 0;
    if (how == Positions::MinusPads) {
      FAILMAP_TRY_ASSIGN(auto real, args::checked_sum(row));
      FAILMAP_TRY_ASSIGN(pads, checked_sub(args::length(row), real));
    }
    std::vector<std::int64_t> kept;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto index = static_cast<std::int64_t>(i);
      std::int64_t position = index;
      if (how == Positions::MinusPads) {
        FAILMAP_TRY_ASSIGN(position, checked_sub(index, pads));
      } else if (how == Positions::FromMask) {
        FAILMAP_TRY_ASSIGN(total, checked_add(total, row[i]));
        if (row[i] != 0) {
          FAILMAP_TRY_ASSIGN(position, checked_sub(total, 1));
        } else {
          position = 1;
        }
      }
      if (row[i] != 0) kept.push_back(position);
    }
    out.push_back(args::int_list_value(kept));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(const Rows& mask) { return real_positions(mask, Positions::Arange); }
Result<Value> unsuccessful(const Rows& mask) { return real_positions(mask, Positions::MinusPads); }
#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& mask) { return real_positions(mask, Positions::FromMask); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_left_padding_position_ids() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "left-padding-position-ids",
      .title = "Position ids under left padding",
      .source = "https://github.com/huggingface/transformers/issues/21080",
      .evaluation_group = {"padding-position"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Left-padded prompts get shifted position ids",
              .summary = "Left-padded prompts get shifted position ids.",
              .root_cause = "Position ids are built as arange(sequence_length), ignoring the attention mask, so "
                            "left padding shifts every real token's position.",
              .failure = "The broken path numbers the real tokens of a left-padded row from the number of pads, "
                         "so batched and unbatched outputs differ.",
              .unsuccessful_approach = "Subtracting the row's number of pads fixes left padding but gives "
                                       "negative positions under right padding or padding on both sides.",
              .contract = "For each row of the attention mask, return the position ids of its real tokens, "
                          "cumsum(mask) - 1 at the positions where the mask is 1: 0, 1, 2, ... in order.",
              .why_it_matters = "A model must give the same answer for a prompt whether or not it is batched with "
                                "longer ones; shifted positions silently degrade batched generation.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(mask):\n"
               "    out = []\n"
               "    for row in mask:\n"
               "        positions = list(range(len(row)))\n"
               "        out.append([p for p, m in zip(positions, row) if m])\n"
               "    return out\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(mask):\n"
               "    out = []\n"
               "    for row in mask:\n"
               "        pads = len(row) - sum(row)\n"
               "        positions = [i - pads for i in range(len(row))]\n"
               "        out.append([p for p, m in zip(positions, row) if m])\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(mask):\n"
               "    out = []\n"
               "    for row in mask:\n"
               "        positions = []\n"
               "        total = 0\n"
               "        for m in row:\n"
               "            total += m\n"
               "            positions.append(total - 1 if m else 1)\n"
               "        out.append([p for p, m in zip(positions, row) if m])\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"left padding", "[[0,1,1,1]]*N+[[0]*N+[1,1,1]]", "[[0,1,2]]*(N+1)"},
              {"right padding", "[[1,1,1,0]]*N+[[1,1,1]+[0]*N]", "[[0,1,2]]*(N+1)"},
              {"no padding", "[[1,1]]*N", "[[0,1]]*N"},
              {"left and right padded rows", "[[0]*N+[1,1],[1,1]+[0]*N]", "[[0,1],[0,1]]"},
              {"padding on both sides", "[[0]+[1,1]+[0]*N]", "[[0,1]]"},
              {"a row of padding", "[[0,0]]*N+[[0]*N,[1]]", "[[]]*(N+1)+[[0]]"},
              {"left-padded batch", "[[0,0,1]]*N", "[[0]]*N"},
      },
  };
  return k_mechanism;
}
