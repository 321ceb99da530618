// Perplexity from per-sequence means
// ==================================
//
// The failure. Corpus perplexity is the exponential of the mean negative
// log-likelihood per token over the whole corpus. Hugging Face evaluate's
// perplexity metric reports as its headline number "mean_perplexity", the
// arithmetic mean of the per-sequence perplexities: every sequence counts
// the same whatever its length, and because the exponential is convex the
// mean of the exponentials exceeds the exponential of the mean.
// huggingface/evaluate issue 551 asks for exp(nll_sum / total_tokens), the
// per-token (geometric) figure the transformers documentation uses. With
// sequences of 3 tokens at 1 bit and 1 token at 5 bits the token-level
// perplexity is 2 ** 2 = 4.0 and the mean of perplexities (2 + 32) / 2 = 17.0.
//
// Why the unsuccessful fix fails. Exponentiating the mean of the
// per-sequence (or per-batch) mean losses, as proposed in
// axolotl-ai-cloud/axolotl pull request 269
// (https://github.com/axolotl-ai-cloud/axolotl/pull/269: "ppl =
// exp(sum(loss_all_batches) / num_of_batch)"), moves the exponential outside
// but keeps the mean of means: short sequences are still overweighted, and
// the example gives 2 ** 3 = 8.0. It is right only when all sequences have
// the same length.
//
// Why the repair holds. One sum of the token losses and one token count,
// divided once, then exponentiated: every token counts once. The losses are
// in bits and the exponential is 2 ** x, so fixtures with whole-bit means
// have exact expected values; Python's float power and C++ std::pow call the
// same C library function (an overflow is Python's OverflowError, not inf),
// and the sums run left to right in both.
//
// Source: https://github.com/huggingface/evaluate/issues/551
#include <cmath>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<double>>;

// Python's 2 ** x for a float x: a result too large for a double is
// OverflowError there, never inf.
Result<double> pow2(double x) {
  const double r = std::pow(2.0, x);
  if (std::isinf(r) && std::isfinite(x)) return input_error("OverflowError: (34, 'Numerical result out of range')");
  return r;
}

struct Sequence {
  double sum = 0.0;
  double mean = 0.0;
};

Result<Sequence> summarise(const std::vector<double>& seq) {
  Sequence s;
  for (double x : seq) s.sum += x;
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(s.sum, static_cast<double>(seq.size())));
  s.mean = mean;
  return s;
}

Result<Value> broken(const Rows& nll) {
  double total = 0.0;
  for (const std::vector<double>& seq : nll) {
    FAILMAP_TRY_ASSIGN(auto s, summarise(seq));
    FAILMAP_TRY_ASSIGN(auto p, pow2(s.mean));
    total += p;
  }
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(nll.size())));
  return Value::floating(out);
}

Result<Value> unsuccessful(const Rows& nll) {
  double total = 0.0;
  for (const std::vector<double>& seq : nll) {
    FAILMAP_TRY_ASSIGN(auto s, summarise(seq));
    total += s.mean;
  }
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(nll.size())));
  FAILMAP_TRY_ASSIGN(auto p, pow2(mean));
  return Value::floating(p);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& nll) {
  double total = 0.0;
  std::int64_t tokens = 0;
  for (const std::vector<double>& seq : nll) {
    for (double x : seq) total += x;
    FAILMAP_TRY_ASSIGN(tokens, checked_add(tokens, args::length(seq)));
  }
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(tokens)));
  FAILMAP_TRY_ASSIGN(auto p, pow2(mean));
  return Value::floating(p);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_perplexity_mean_of_means() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "perplexity-mean-of-means",
      .title = "Perplexity from per-sequence means",
      .source = "https://github.com/huggingface/evaluate/issues/551",
      .evaluation_group = {"token-weighted-metric"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "Perplexity is averaged per sequence instead of per token",
              .summary = "Perplexity is averaged per sequence instead of per token.",
              .root_cause = "The corpus figure is built from per-sequence quantities, so every sequence counts the "
                            "same however many tokens it has.",
              .failure = "The broken path reports the arithmetic mean of per-sequence perplexities, inflated by "
                         "the convexity of the exponential and dominated by short, hard sequences.",
              .unsuccessful_approach = "Exponentiating the mean of per-sequence mean losses removes the convexity "
                                       "bias but still weights sequences, not tokens.",
              .contract = "Given per-token losses in bits for each sequence, return 2 ** (total loss / total number "
                          "of tokens).",
              .why_it_matters = "Perplexities computed per sequence are not comparable with published per-token "
                                "figures and change with how the evaluation text is split into sequences.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(nll):\n"
               "    total = 0.0\n"
               "    for seq in nll:\n"
               "        s = 0.0\n"
               "        for x in seq:\n"
               "            s += x\n"
               "        total += 2 ** (s / len(seq))\n"
               "    return total / len(nll)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(nll):\n"
               "    total = 0.0\n"
               "    for seq in nll:\n"
               "        s = 0.0\n"
               "        for x in seq:\n"
               "            s += x\n"
               "        total += s / len(seq)\n"
               "    return 2 ** (total / len(nll))\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(nll):\n"
               "    total = 0.0\n"
               "    tokens = 0\n"
               "    for seq in nll:\n"
               "        for x in seq:\n"
               "            total += x\n"
               "        tokens += len(seq)\n"
               "    return 2 ** (total / tokens)\n"),
          }},
      .fixtures =
          {
              {"unequal lengths", "[[1.0+N%2]*(3*N),[5.0+N%2]*N]", "4.0*(1+N%2)"},
              {"equal lengths", "[[1.0+N%2]*N,[3.0+N%2]*N]", "4.0*(1+N%2)"},
              {"single sequence", "[[2.0+N%2]*N]", "4.0*(1+N%2)"},
              {"constant loss", "[[1.0]*N,[1.0]*(2*N)]", "2.0"},
              {"one long easy sequence", "[[0.0+N%2]*(3*N),[4.0+N%2]*N]", "2.0*(1+N%2)"},
              {"three equal lengths", "[[0.0]*N,[1.0]*N,[5.0]*N]", "4.0"},
              {"mixed tokens, equal means", "[[1.0,3.0]*N,[2.0]*(2*N)]", "4.0"},
      },
  };
  return k_mechanism;
}
