// BLEU brevity penalty with the wrong reference length
// ====================================================
//
// The failure. Corpus BLEU multiplies the n-gram precisions by the brevity
// penalty exp(1 - r / c) when the candidate corpus is shorter than the
// reference corpus: c is the total candidate length and r the sum, over the
// sentences, of the length of the reference closest in length to the
// candidate (Papineni et al. 2002, section 2.2.2). nltk's
// `_brevity_penalty` took `min(abs(len(ref) - c) for ref in references)`,
// the smallest length DIFFERENCE, as r (nltk issue 922, fixed by pull
// request 926): a 12-token candidate with a 28-token reference used r = 16.
// Candidates of length 4 against one reference of length 6 give [4, 2]
// instead of [4, 6]; the penalty disappears for short output.
//
// Why the unsuccessful fix fails. Taking a real length, but the shortest
// reference (`min(len(ref) for ref in references)`), is what torcheval's BLEU
// did until pull request 195 (meta-pytorch/torcheval) replaced it with the
// closest length. It is right with one reference per sentence and whenever
// the shortest reference is also the closest, and wrong when a candidate is
// nearer a longer reference: the penalty then under-punishes short output.
//
// Why the repair holds. Per sentence it takes the reference length nearest
// the candidate length, the shorter one on a tie (nltk's closest_ref_length
// sorts by (distance, length)), and sums lengths over the corpus. Lengths are
// integers, so the C++ (checked sums) gives the Python's values exactly.
//
// Source: https://github.com/nltk/nltk/issues/922
#include <cstdlib>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

enum class Pick { SmallestDistance, ShortestReference, ClosestLength };

Result<Value> effective_lengths(const std::vector<std::int64_t>& hyp_lens, const Rows& ref_lens, Pick pick) {
  std::int64_t c = 0;
  std::int64_t r = 0;
  const std::size_t n = std::min(hyp_lens.size(), ref_lens.size());  // zip truncates
  for (std::size_t s = 0; s < n; ++s) {
    const std::int64_t h = hyp_lens[s];
    const auto& refs = ref_lens[s];
    if (refs.empty()) return input_error("ValueError: min() arg is an empty sequence");
    std::int64_t chosen = 0;
    for (std::size_t k = 0; k < refs.size(); ++k) {
      FAILMAP_TRY_ASSIGN(auto diff, checked_sub(refs[k], h));
      if (diff == INT64_MIN) return input_error("OverflowError: reference length difference");
      const std::int64_t dist = std::llabs(diff);
      std::int64_t value = 0;
      bool better = false;
      switch (pick) {
        case Pick::SmallestDistance:
          value = dist;
          better = k == 0 || dist < chosen;
          break;
        case Pick::ShortestReference:
          value = refs[k];
          better = k == 0 || refs[k] < chosen;
          break;
        case Pick::ClosestLength: {
          value = refs[k];
          if (k == 0) {
            better = true;
          } else {
            const std::int64_t best_dist = std::llabs(chosen - h);
            better = dist < best_dist || (dist == best_dist && refs[k] < chosen);
          }
          break;
        }
      }
      if (better) chosen = value;
    }
    FAILMAP_TRY_ASSIGN(c, checked_add(c, h));
    FAILMAP_TRY_ASSIGN(r, checked_add(r, chosen));
  }
  return Value::list({Value::integer(c), Value::integer(r)});
}

Result<Value> broken(const std::vector<std::int64_t>& hyp_lens, const Rows& ref_lens) {
  return effective_lengths(hyp_lens, ref_lens, Pick::SmallestDistance);
}

Result<Value> unsuccessful(const std::vector<std::int64_t>& hyp_lens, const Rows& ref_lens) {
  return effective_lengths(hyp_lens, ref_lens, Pick::ShortestReference);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<std::int64_t>& hyp_lens, const Rows& ref_lens) {
  return effective_lengths(hyp_lens, ref_lens, Pick::ClosestLength);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_bleu_closest_ref_length() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "bleu-closest-ref-length",
      .title = "BLEU brevity penalty with the wrong reference length",
      .source = "https://github.com/nltk/nltk/issues/922",
      .evaluation_group = {"corpus-bleu"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The BLEU brevity penalty uses a length difference as the reference length",
              .summary = "The BLEU brevity penalty uses a length difference as the reference length.",
              .root_cause = "The effective reference length r of each sentence is taken as the smallest difference "
                            "between a reference length and the candidate length, not as that reference's length.",
              .failure = "The broken path sums length differences into r, so r is far below c and short "
                         "translations escape the brevity penalty.",
              .unsuccessful_approach = "Using the shortest reference's length is a real length, but not the "
                                       "closest one when a candidate is nearer a longer reference.",
              .contract = "Return [c, r] of corpus BLEU's brevity penalty exp(1 - r/c): c the sum of the candidate "
                          "lengths, r the sum over sentences of the reference length closest to the candidate "
                          "length, the shorter reference on a tie.",
              .why_it_matters = "The brevity penalty is what stops BLEU from rewarding truncated output; with the "
                                "wrong r a system that drops words scores as well as one that does not.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(hyp_lens, ref_lens):\n"
               "    c = 0\n"
               "    r = 0\n"
               "    for h, refs in zip(hyp_lens, ref_lens):\n"
               "        c += h\n"
               "        r += min(abs(x - h) for x in refs)\n"
               "    return [c, r]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(hyp_lens, ref_lens):\n"
               "    c = 0\n"
               "    r = 0\n"
               "    for h, refs in zip(hyp_lens, ref_lens):\n"
               "        c += h\n"
               "        r += min(refs)\n"
               "    return [c, r]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(hyp_lens, ref_lens):\n"
               "    c = 0\n"
               "    r = 0\n"
               "    for h, refs in zip(hyp_lens, ref_lens):\n"
               "        c += h\n"
               "        r += min(refs, key=lambda x: (abs(x - h), x))\n"
               "    return [c, r]\n"),
          }},
      .fixtures =
          {
              {"one reference each", "[4]*N,[[6]]*N", "[4*N,6*N]"},
              {"the closest reference is the longer", "[6]*N,[[3,7]]*N", "[6*N,7*N]"},
              {"the closest reference is the shorter", "[6]*N,[[5,9]]*N", "[6*N,5*N]"},
              {"two references equally close", "[6]*N,[[7,5]]*N", "[6*N,5*N]"},
              {"the candidate longer than every reference", "[9]*N,[[4,8]]*N", "[9*N,8*N]"},
              {"a shorter candidate, the same references", "[4]*N,[[3,7]]*N", "[4*N,3*N]"},
              {"sentences of two kinds", "[6,4]*N,[[3,7],[4]]*N", "[10*N,11*N]"},
          },
  };
  return k_mechanism;
}
