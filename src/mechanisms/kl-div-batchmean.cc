// KL divergence batchmean
// =======================
//
// The failure. The KL divergence between two distributions sums its
// pointwise terms p * (log p - log q) over the classes; a batch loss then
// averages that per-distribution divergence over the distributions. With
// KLDivLoss / F.kl_div the reduction decides the denominator, and
// reduction='mean' divides the summed terms by the number of elements,
// classes included, so the loss shrinks with the vocabulary size (PyTorch's
// documentation says only 'batchmean' matches the definition). DeiT divided
// its distillation KL by outputs_kd.numel() (facebookresearch/deit issue
// 61); the broken path is that element mean. The terms are given directly,
// as a [batch][time][classes] list, so no logarithm is computed here.
//
// Why the unsuccessful fix fails. Switching to reduction='batchmean' divides
// by the first dimension only. For a [batch, classes] input that is right,
// but for token-level distillation the input is [batch, time, vocab], and
// the loss then grows in proportion to the sequence length, as
// transformers issue 1181 measured for DistilBERT ("the scale of the output
// loss ... varies directly proportional to timesteps").
//
// Why the repair holds. Divide the summed terms by the number of
// distributions, batch * time: every position's divergence counts once and
// the loss is independent of vocabulary size, batch size and sequence
// length. Python sums the terms in list order; the C++ adds them in the same
// order and divides once.
//
// Source: https://github.com/facebookresearch/deit/issues/61
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Denominator { Elements, Batch, Distributions };

// terms is taken as the Value and walked in place (a copy into nested vectors
// made the strategy five times slower, bench/solve_bench.cc); the walk is
// also the type check, with the refusal the typed parameter would give.
Error terms_error(const Value& v) {
  return args::type_error(0, "terms", "list of lists of lists of float", v);
}

Result<Value> kl_mean(const Value& terms, Denominator denominator) {
  if (!terms.is_list()) return terms_error(terms);
  double total = 0.0;
  std::int64_t elements = 0;
  std::int64_t distributions = 0;
  for (const Value& seq : terms.as_list()) {
    if (!seq.is_list()) return terms_error(terms);
    for (const Value& dist : seq.as_list()) {
      if (!dist.is_list()) return terms_error(terms);
      ++distributions;
      for (const Value& x : dist.as_list()) {
        if (!x.is_float()) return terms_error(terms);
        total += x.as_float();
        ++elements;
      }
    }
  }
  const std::int64_t den = denominator == Denominator::Elements ? elements
                           : denominator == Denominator::Batch  ? args::length(terms.as_list())
                                                                : distributions;
  FAILMAP_TRY_ASSIGN(auto out, args::divide(total, static_cast<double>(den)));
  return Value::floating(out);
}

Result<Value> broken(const Value& terms) { return kl_mean(terms, Denominator::Elements); }
Result<Value> unsuccessful(const Value& terms) { return kl_mean(terms, Denominator::Batch); }
#if FAILMAP_REPAIRS
Result<Value> repaired(const Value& terms) { return kl_mean(terms, Denominator::Distributions); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_kl_div_batchmean() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "kl-div-batchmean",
      .title = "KL divergence batchmean",
      .source = "https://github.com/facebookresearch/deit/issues/61",
      .evaluation_group = {"kl-divergence-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      // "long sequence" holds N + 1 distributions: within the 1,000,000-element cap.
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "A KL divergence loss is averaged over elements instead of distributions",
              .summary = "A KL divergence loss is averaged over elements instead of distributions.",
              .root_cause = "The pointwise KL terms are summed and divided by a count that is not the number of "
                            "distributions compared.",
              .failure = "The broken path divides by every element, classes included, as reduction='mean' does, so "
                         "the loss shrinks with the vocabulary.",
              .unsuccessful_approach = "Using reduction='batchmean' divides by the batch dimension only, so "
                                       "token-level losses grow with the sequence length.",
              .contract = "Return the sum of all pointwise terms of the [batch][time][classes] list divided by the "
                          "number of distributions, batch * time.",
              .why_it_matters = "A distillation loss whose scale depends on vocabulary or sequence length silently "
                                "re-weights it against the other loss terms it is mixed with.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(terms):\n"
               "    total = 0.0\n"
               "    count = 0\n"
               "    for seq in terms:\n"
               "        for dist in seq:\n"
               "            for x in dist:\n"
               "                total += x\n"
               "                count += 1\n"
               "    return total / count\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(terms):\n"
               "    total = 0.0\n"
               "    for seq in terms:\n"
               "        for dist in seq:\n"
               "            for x in dist:\n"
               "                total += x\n"
               "    return total / len(terms)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(terms):\n"
               "    total = 0.0\n"
               "    rows = 0\n"
               "    for seq in terms:\n"
               "        for dist in seq:\n"
               "            rows += 1\n"
               "            for x in dist:\n"
               "                total += x\n"
               "    return total / rows\n"),
          }},
      .fixtures =
          {
              {"one token", "[[[0.5*N,0.25,0.25]]]", "(0.5*N+0.5)/1"},
              {"two tokens", "[[[1.0*N,1.0],[2.0,2.0]]]", "(1.0*N+5.0)/2"},
              {"batch of single tokens", "[[[1.0,3.0*N]],[[2.0,2.0]]]", "(5.0+3.0*N)/2"},
              {"zero divergence", "[[[0.0,0.0]],[[0.0,0.0]]]", "0.0"},
              {"long sequence", "[[[2.0,2.0]]*(N+1)]", "4.0"},
              {"single class", "[[[3.0*N]]]", "3.0*N"},
              {"two sequences of two tokens", "[[[1.0,0.0],[0.0,1.0]],[[2.0*N,0.0],[0.0,2.0]]]", "(4.0+2.0*N)/4"},
          },
  };
  return k_mechanism;
}
