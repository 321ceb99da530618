// Collate pad to a multiple
// =========================
//
// The failure. For fp16 tensor cores a collator pads every batch to a
// multiple of 8 (pad_to_multiple_of). transformers' `_collate_batch`
// returned early when all sequences of the batch had the same length, before
// padding to the multiple, so such batches kept their odd length: three
// sequences of length 7 with a multiple of 8 stay at 7 where the contract is
// 8, and the batch shapes fed to the model are no longer multiples.
// transformers PR 11128, adding pad_to_multiple_of to the language-modelling
// collator, fixed the early return (the reviewer's "Nice catch!").
//
// Why the unsuccessful fix fails. Dropping the early return and rounding up
// with `(longest // multiple + 1) * multiple` for every batch pads a batch
// whose longest sequence is already a multiple by one more full block:
// lengths [8, 5] with multiple 8 become 16 wide. It is right only when the
// longest length is not a multiple. (Constructed: the PR guards the rounding
// with `max_length % pad_to_multiple_of != 0`; the unguarded form is the
// common slip.)
//
// Why the repair holds. The padded length is the least multiple of
// `multiple` that is at least the longest sequence, whether or not the
// lengths are equal, and every sequence pads up to it. Integer arithmetic,
// checked in C++.
//
// Source: https://github.com/huggingface/transformers/pull/11128
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Padding { SkipEqual, AlwaysAddBlock, CeilToMultiple };

// [width, sum(width - x for x in lengths)]
Result<Value> padded(args::IntListView lengths, std::int64_t multiple, Padding padding) {
  if (lengths.size() == 0) return input_error("max() arg is an empty sequence");
  std::int64_t longest = lengths[0];
  bool equal = true;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > longest) longest = lengths[i];
    if (lengths[i] != lengths[0]) equal = false;
  }
  std::int64_t width = longest;
  if (padding == Padding::SkipEqual && equal) {
    width = lengths[0];
  } else {
    FAILMAP_TRY_ASSIGN(auto rest, checked_mod(longest, multiple));
    if (padding == Padding::AlwaysAddBlock || rest != 0) {
      FAILMAP_TRY_ASSIGN(auto blocks, checked_floordiv(longest, multiple));
      FAILMAP_TRY_ASSIGN(auto next, checked_add(blocks, 1));
      FAILMAP_TRY_ASSIGN(width, checked_mul(next, multiple));
    }
  }
  std::int64_t pads = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    FAILMAP_TRY_ASSIGN(auto gap, checked_sub(width, lengths[i]));
    FAILMAP_TRY_ASSIGN(pads, checked_add(pads, gap));
  }
  return args::int_list_value({width, pads});
}

Result<Value> broken(args::IntListView lengths, std::int64_t multiple) {
  return padded(lengths, multiple, Padding::SkipEqual);
}

Result<Value> unsuccessful(args::IntListView lengths, std::int64_t multiple) {
  return padded(lengths, multiple, Padding::AlwaysAddBlock);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView lengths, std::int64_t multiple) {
  return padded(lengths, multiple, Padding::CeilToMultiple);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_collate_pad_to_multiple() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "collate-pad-to-multiple",
      .title = "Collate pad to a multiple",
      .source = "https://github.com/huggingface/transformers/pull/11128",
      .evaluation_group = {"collate-padding"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A batch of equal-length sequences skips padding to the multiple",
              .summary = "A batch of equal-length sequences skips padding to the multiple.",
              .root_cause = "The collator returns early when all sequences have the same length, before it pads "
                            "the batch to pad_to_multiple_of.",
              .failure = "The broken path keeps equal-length batches at their own length: three sequences of 7 with "
                         "a multiple of 8 stay 7 wide.",
              .unsuccessful_approach = "Rounding up with (longest // multiple + 1) * multiple for every batch adds a "
                                       "whole extra block when the longest sequence is already a multiple.",
              .contract = "Return [width, pad tokens]: width is the least multiple of `multiple` that is at least "
                          "the longest length, and pad tokens is the sum of width - length over the batch.",
              .why_it_matters = "Shapes that are not multiples of 8 fall off the tensor-core path, and an extra "
                                "block wastes memory and compute on padding in every batch.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(lengths, multiple):\n"
               "    longest = max(lengths)\n"
               "    if all(x == lengths[0] for x in lengths):\n"
               "        return [lengths[0], 0]\n"
               "    if longest % multiple != 0:\n"
               "        longest = (longest // multiple + 1) * multiple\n"
               "    return [longest, sum(longest - x for x in lengths)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(lengths, multiple):\n"
               "    longest = (max(lengths) // multiple + 1) * multiple\n"
               "    return [longest, sum(longest - x for x in lengths)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(lengths, multiple):\n"
               "    longest = max(lengths)\n"
               "    if longest % multiple != 0:\n"
               "        longest = (longest // multiple + 1) * multiple\n"
               "    return [longest, sum(longest - x for x in lengths)]\n"),
          }},
      .fixtures =
          {
              {"equal lengths, not a multiple", "[2*N+1]*3,2", "[2*N+2,3]"},
              {"longest already a multiple", "[4*N,4*N-1,1],4", "[4*N,4*N]"},
              {"equal lengths, a multiple", "[8*N,8*N],8", "[8*N,0]"},
              {"mixed lengths, multiple of three", "[6*N+1,1],3", "[6*N+3,6*N+4]"},
              {"multiple of one", "[N,N+2,N+1],1", "[N+2,3]"},
              {"a single sequence", "[5*N+2],5", "[5*N+5,3]"},
              {"mixed lengths, multiple of two", "[6*N+1,1],2", "[6*N+2,6*N+2]"},
          },
  };
  return k_mechanism;
}
