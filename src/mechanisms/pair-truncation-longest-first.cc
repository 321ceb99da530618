// Pair truncation, longest first
// ==============================
//
// The failure. A sentence-pair task (GLUE's QQP, NLI, QA) encodes
// [CLS] a [SEP] b [SEP] in max_length tokens, so a and b share max_length - 3
// positions. Truncating only the first sequence cannot work when the second
// one is the long one: transformers PR 5472 reports the GLUE example crashing
// on QQP with "We need to remove 186 to truncate the input but the first
// sequence has a length 25", and switches the example to the longest_first
// strategy. The broken path here is only_first with the removal clamped at
// an empty first sequence: the pair still overflows, and a short question
// loses every token while its long context keeps all of its own.
//
// Why the unsuccessful fix fails. Taking the whole excess off the longer
// sequence in one step fixes the case the crash showed, but when the excess
// is larger than the difference in length it cuts the longer sequence below
// the shorter one: two sequences of 2N tokens with a budget of 2N become
// [2N, 0] instead of [N, N]. longest_first removes one token at a time from
// whichever is longer at that moment, so both end up within one token of each
// other. (Constructed: the closed form people write instead of the loop.)
//
// Why the repair holds. It is the loop of BERT's truncate_seq_pair and the
// slow tokenizers' longest_first: while the pair exceeds the budget, drop a
// token from the longer sequence, from the second on a tie. Integer
// arithmetic; the C++ runs the same loop, checked and capped.
//
// Source: https://github.com/huggingface/transformers/pull/5472
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Truncation { OnlyFirst, ExcessFromLonger, LongestFirst };

Result<Value> truncated(std::int64_t len_a, std::int64_t len_b, std::int64_t max_length, Truncation truncation) {
  FAILMAP_TRY_ASSIGN(auto budget, checked_sub(max_length, 3));
  FAILMAP_TRY_ASSIGN(auto sum, checked_add(len_a, len_b));
  FAILMAP_TRY_ASSIGN(auto excess, checked_sub(sum, budget));
  if (truncation == Truncation::LongestFirst) {
    if (excess > 10000000) return input_error("removing more than 10,000,000 tokens is outside this reproducer");
    std::int64_t a = len_a, b = len_b;
    for (std::int64_t left = excess; left > 0; --left) {
      if (a > b) {
        --a;
      } else {
        --b;
      }
    }
    return args::int_list_value({a, b});
  }
  if (excess <= 0) return args::int_list_value({len_a, len_b});
  if (truncation == Truncation::OnlyFirst) {
    FAILMAP_TRY_ASSIGN(auto a, checked_sub(len_a, excess));
    return args::int_list_value({a < 0 ? 0 : a, len_b});
  }
  if (len_a > len_b) {
    FAILMAP_TRY_ASSIGN(auto a, checked_sub(len_a, excess));
    return args::int_list_value({a, len_b});
  }
  FAILMAP_TRY_ASSIGN(auto b, checked_sub(len_b, excess));
  return args::int_list_value({len_a, b});
}

Result<Value> broken(std::int64_t len_a, std::int64_t len_b, std::int64_t max_length) {
  return truncated(len_a, len_b, max_length, Truncation::OnlyFirst);
}

Result<Value> unsuccessful(std::int64_t len_a, std::int64_t len_b, std::int64_t max_length) {
  return truncated(len_a, len_b, max_length, Truncation::ExcessFromLonger);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t len_a, std::int64_t len_b, std::int64_t max_length) {
  return truncated(len_a, len_b, max_length, Truncation::LongestFirst);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_pair_truncation_longest_first() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "pair-truncation-longest-first",
      .title = "Pair truncation, longest first",
      .source = "https://github.com/huggingface/transformers/pull/5472",
      .evaluation_group = {"pair-truncation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A sentence pair is truncated from the first sequence only",
              .summary = "A sentence pair is truncated from the first sequence only.",
              .root_cause = "Every excess token of the pair is taken from the first sequence, however short it is, "
                            "instead of from whichever sequence is longer.",
              .failure = "The broken path returns [max(0, len_a - excess), len_b]: a short question is emptied and "
                         "the pair still overflows.",
              .unsuccessful_approach = "Taking the whole excess from the longer sequence at once can cut it below "
                                       "the shorter one instead of balancing the two.",
              .contract = "The pair [CLS] a [SEP] b [SEP] must fit max_length, so len_a + len_b <= max_length - 3; "
                          "while it does not, remove one token from the longer sequence (from b on a tie). Return "
                          "[len_a, len_b] after truncation.",
              .why_it_matters = "Truncating the wrong side removes the question or the hypothesis the label depends "
                                "on, or crashes the preprocessing of a whole dataset.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(len_a, len_b, max_length):\n"
               "    excess = len_a + len_b - (max_length - 3)\n"
               "    if excess <= 0:\n"
               "        return [len_a, len_b]\n"
               "    return [max(0, len_a - excess), len_b]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(len_a, len_b, max_length):\n"
               "    excess = len_a + len_b - (max_length - 3)\n"
               "    if excess <= 0:\n"
               "        return [len_a, len_b]\n"
               "    if len_a > len_b:\n"
               "        return [len_a - excess, len_b]\n"
               "    return [len_a, len_b - excess]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(len_a, len_b, max_length):\n"
               "    budget = max_length - 3\n"
               "    a = len_a\n"
               "    b = len_b\n"
               "    while a + b > budget:\n"
               "        if a > b:\n"
               "            a -= 1\n"
               "        else:\n"
               "            b -= 1\n"
               "    return [a, b]\n"),
          }},
      .fixtures =
          {
              {"first sequence longer", "4*N,N,5*N+1", "[4*N-2,N]"},
              {"second sequence longer", "N,4*N,5*N+1", "[N,4*N-2]"},
              {"equal lengths", "2*N,2*N,2*N+3", "[N,N]"},
              {"an empty second sequence", "2*N,0,2*N+3", "[2*N,0]"},
              {"a longer first sequence, second still longer", "2*N,4*N,5*N+1", "[2*N,3*N-2]"},
              {"a larger budget", "4*N,N,5*N+3", "[4*N,N]"},
              {"excess past the difference", "4*N,3*N,5*N+1", "[3*N-(N+2)//2,3*N-(N+3)//2]"},
          },
  };
  return k_mechanism;
}
