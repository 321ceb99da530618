// BLEU clipping against one whole reference
// =========================================
//
// The failure. BLEU's modified n-gram precision clips the count of each
// candidate n-gram by the largest number of times it occurs in any ONE
// reference, then sums the clipped counts (Papineni et al. 2002, section
// 2.1). promptfoo's BLEU assertion instead picked the single reference with
// the largest total clipped count and used only that one, so references that
// each cover part of the candidate undercount it: 'a b c d e f' against
// 'a b c d e X' and 'Y b c d e f' scores 5 of 6 unigrams instead of 6
// (promptfoo/promptfoo pull request 9846, which makes a 0.9 threshold fail
// for an exact-coverage candidate).
//
// Why the unsuccessful fix fails. Merging the references by ADDING their
// counts before clipping lets complementary references cover the candidate,
// but also lets a word that each reference uses once be credited once per
// reference: a candidate that repeats a word gets more matches than any
// reference supports, which is exactly the repetition that clipping exists
// to stop. (Constructed; the pull request takes the maximum.)
//
// Why the repair holds. For each distinct candidate token the clip is
// min(candidate count, max over references of its count there); the sum of
// the clips over the candidate's distinct tokens is the numerator, the
// candidate length the denominator. Unigrams here; counts are integers, so
// the C++ gives the Python's values exactly.
//
// Source: https://github.com/promptfoo/promptfoo/pull/9846
#include <algorithm>
#include <map>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;
using Counts = std::map<std::int64_t, std::int64_t>;

enum class Clip { BestSingleReference, SummedReferences, MaxPerToken };

Counts count(const std::vector<std::int64_t>& xs) {
  Counts c;
  for (auto x : xs) ++c[x];
  return c;
}

std::int64_t get(const Counts& c, std::int64_t key) {
  auto it = c.find(key);
  return it == c.end() ? 0 : it->second;
}

Result<Value> clipped(const std::vector<std::int64_t>& candidate, const Rows& references, Clip clip) {
  const Counts cand = count(candidate);
  std::vector<Counts> refs;
  for (const auto& r : references) refs.push_back(count(r));
  std::int64_t matches = 0;
  if (clip == Clip::BestSingleReference) {
    for (const auto& r : refs) {
      std::int64_t m = 0;
      for (const auto& [tok, n] : cand) m += std::min(n, get(r, tok));
      matches = std::max(matches, m);
    }
  } else {
    for (const auto& [tok, n] : cand) {
      std::int64_t allowed = 0;
      for (const auto& r : refs) {
        if (clip == Clip::SummedReferences) allowed += get(r, tok);
        else allowed = std::max(allowed, get(r, tok));
      }
      matches += std::min(n, allowed);
    }
  }
  return Value::list({Value::integer(matches), Value::integer(static_cast<std::int64_t>(candidate.size()))});
}

Result<Value> broken(const std::vector<std::int64_t>& candidate, const Rows& references) {
  return clipped(candidate, references, Clip::BestSingleReference);
}

Result<Value> unsuccessful(const std::vector<std::int64_t>& candidate, const Rows& references) {
  return clipped(candidate, references, Clip::SummedReferences);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<std::int64_t>& candidate, const Rows& references) {
  return clipped(candidate, references, Clip::MaxPerToken);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_bleu_multi_reference_clip() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "bleu-multi-reference-clip",
      .title = "BLEU clipping against one whole reference",
      .source = "https://github.com/promptfoo/promptfoo/pull/9846",
      .evaluation_group = {"corpus-bleu"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "BLEU clips the candidate against the best single reference instead of per token",
              .summary = "BLEU clips the candidate against the best single reference instead of per token.",
              .root_cause = "Modified precision keeps only the one reference with the largest total clipped count, "
                            "so tokens covered by the other references are not credited.",
              .failure = "The broken path undercounts a candidate whose words are spread over several references, "
                         "and multi-reference BLEU falls below single-reference BLEU.",
              .unsuccessful_approach = "Adding the references' counts before clipping credits complementary "
                                       "references but also credits a repeated word once per reference.",
              .contract = "Return [clipped matches, candidate length] of BLEU's unigram modified precision: for each "
                          "distinct candidate token, min(its count in the candidate, the largest count it has in any "
                          "one reference), summed over the distinct tokens.",
              .why_it_matters = "Multiple references exist to accept more valid wordings; a clip that uses one "
                                "reference at a time throws that away and penalises correct output.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def count(xs):\n"
               "    c = {}\n"
               "    for x in xs:\n"
               "        c[x] = c.get(x, 0) + 1\n"
               "    return c\n"
               "def solve(candidate, references):\n"
               "    cand = count(candidate)\n"
               "    best = 0\n"
               "    for ref in references:\n"
               "        r = count(ref)\n"
               "        m = 0\n"
               "        for tok, n in cand.items():\n"
               "            m += min(n, r.get(tok, 0))\n"
               "        best = max(best, m)\n"
               "    return [best, len(candidate)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def count(xs):\n"
               "    c = {}\n"
               "    for x in xs:\n"
               "        c[x] = c.get(x, 0) + 1\n"
               "    return c\n"
               "def solve(candidate, references):\n"
               "    cand = count(candidate)\n"
               "    merged = {}\n"
               "    for ref in references:\n"
               "        for tok, n in count(ref).items():\n"
               "            merged[tok] = merged.get(tok, 0) + n\n"
               "    matches = 0\n"
               "    for tok, n in cand.items():\n"
               "        matches += min(n, merged.get(tok, 0))\n"
               "    return [matches, len(candidate)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def count(xs):\n"
               "    c = {}\n"
               "    for x in xs:\n"
               "        c[x] = c.get(x, 0) + 1\n"
               "    return c\n"
               "def solve(candidate, references):\n"
               "    cand = count(candidate)\n"
               "    allowed = {}\n"
               "    for ref in references:\n"
               "        for tok, n in count(ref).items():\n"
               "            allowed[tok] = max(allowed.get(tok, 0), n)\n"
               "    matches = 0\n"
               "    for tok, n in cand.items():\n"
               "        matches += min(n, allowed.get(tok, 0))\n"
               "    return [matches, len(candidate)]\n"),
          }},
      .fixtures =
          {
              {"complementary references", "[1]*N+[2]*N,[[1]*N+[3]*N,[2]*N+[3]*N]", "[2*N,2*N]"},
              {"a repeated word in two references", "[1]*(2*N),[[1]*N+[2],[1]*N+[3]]", "[N,2*N]"},
              {"one reference", "[1]*N+[2],[[1]*(N+1)]", "[N,N+1]"},
              {"one reference, a word repeated beyond it", "[1]*(N+2)+[2],[[1]*(N+1)]", "[N+1,N+3]"},
              {"a reference that repeats the word enough", "[1]*(2*N),[[1]*(2*N)+[2],[1]*N+[3]]", "[2*N,2*N]"},
              {"complementary references and a repeated word", "[1]*(2*N)+[2]*N+[3]*N,[[1]*N+[2]*N,[1]*N+[3]*N]",
               "[3*N,4*N]"},
              {"no word matches", "[5]*N,[[1]*N,[2]]", "[0,N]"},
          },
  };
  return k_mechanism;
}
