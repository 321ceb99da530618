// Evaluation drop_last
// ====================
//
// The failure. The test loader of a forecasting or classification benchmark
// is built with drop_last=True, copied from the training loader. The final
// short batch is never evaluated, so the reported metric covers
// len(dataset) // batch_size * batch_size samples instead of all of them,
// and the number of scored samples (and the score) changes with the batch
// size. Per-sample hits [1, 1, 0] at batch size 2 report [2, 1.0] (two
// samples, accuracy 1.0) where the dataset's answer is [3, 0.6666666666666666].
// thuml/Autoformer issue 104 reports exactly this for the test loader; the
// maintainers re-evaluated with drop_last=False.
//
// Why the unsuccessful fix fails. Turning drop_last off but keeping an
// evaluation loop that appends one mean per batch and averages those means
// scores every sample again, but weights the short final batch as much as a
// full one: [1, 1, 0] at batch size 2 gives (1.0 + 0.0) / 2 = 0.5. It is
// right only when the final batch is full or happens to have the same mean as
// the rest. (Constructed: the thread does not show this step; the pattern is
// the common per-batch average of an evaluation loop.)
//
// Why the repair holds. It scores every sample once and divides the total
// by the number of samples, which is what the metric means and does not
// depend on the batch size. int / int is Python true division, correctly
// rounded, and so is the C++ (args::true_divide) for counts below 2**53.
//
// Source: https://github.com/thuml/Autoformer/issues/104
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// sum(flags[begin:end]) for 0 <= begin <= end <= len(flags).
Result<std::int64_t> hits(const args::IntListView& flags, std::size_t begin, std::size_t end) {
  std::int64_t total = 0;
  for (std::size_t i = begin; i < end; ++i) {
    FAILMAP_TRY_ASSIGN(total, checked_add(total, flags[i]));
  }
  return total;
}

// [count, hits / count]
Result<Value> scored(std::int64_t count, std::int64_t hit_count) {
  FAILMAP_TRY_ASSIGN(auto accuracy, args::true_divide(hit_count, count));
  return Value::list({Value::integer(count), Value::floating(accuracy)});
}

Result<Value> broken(args::IntListView flags, std::int64_t batch_size) {
  const auto n = static_cast<std::int64_t>(flags.size());
  FAILMAP_TRY_ASSIGN(auto batches, checked_floordiv(n, batch_size));
  FAILMAP_TRY_ASSIGN(auto kept, checked_mul(batches, batch_size));
  // flags[:kept]: Python slicing clamps to the list.
  const std::int64_t end = kept < 0 ? 0 : (kept > n ? n : kept);
  FAILMAP_TRY_ASSIGN(auto h, hits(flags, 0, static_cast<std::size_t>(end)));
  return scored(end, h);
}

Result<Value> unsuccessful(args::IntListView flags, std::int64_t batch_size) {
  if (batch_size <= 0) return input_error("range() arg 3 must not be zero or negative here");
  const std::size_t n = flags.size();
  const auto b = static_cast<std::size_t>(batch_size);
  double total = 0.0;
  std::int64_t batches = 0;
  for (std::size_t i = 0; i < n; i += b) {
    const std::size_t end = n - i < b ? n : i + b;
    FAILMAP_TRY_ASSIGN(auto h, hits(flags, i, end));
    FAILMAP_TRY_ASSIGN(auto mean, args::true_divide(h, static_cast<std::int64_t>(end - i)));
    total += mean;
    ++batches;
  }
  FAILMAP_TRY_ASSIGN(auto accuracy, args::divide(total, static_cast<double>(batches)));
  return Value::list({Value::integer(static_cast<std::int64_t>(n)), Value::floating(accuracy)});
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView flags, std::int64_t /*batch_size*/) {
  const std::size_t n = flags.size();
  FAILMAP_TRY_ASSIGN(auto h, hits(flags, 0, n));
  return scored(static_cast<std::int64_t>(n), h);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_eval_drop_last() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "eval-drop-last",
      .title = "Evaluation drop_last",
      .source = "https://github.com/thuml/Autoformer/issues/104",
      .evaluation_group = {"eval-sample-coverage", "distributed-evaluation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "The evaluation loader drops its final short batch",
              .summary = "The evaluation loader drops its final short batch.",
              .root_cause = "The evaluation loader is built with drop_last=True, so the samples of the final short "
                            "batch are never scored.",
              .failure = "The broken path scores only len // batch_size * batch_size samples; the metric and the "
                         "number of scored samples change with the batch size.",
              .unsuccessful_approach = "Keeping the last batch but averaging per-batch means weights the short "
                                       "final batch as much as a full one.",
              .contract = "Return [number of samples scored, accuracy]: every sample scored once, total hits "
                          "divided by the number of samples.",
              .why_it_matters = "A benchmark number that depends on the evaluation batch size is not a property of "
                                "the model; published comparisons made with different batch sizes are skewed.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(flags, batch_size):\n"
               "    kept = len(flags) // batch_size * batch_size\n"
               "    scored = flags[:kept]\n"
               "    return [len(scored), sum(scored) / len(scored)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(flags, batch_size):\n"
               "    total = 0.0\n"
               "    batches = 0\n"
               "    for start in range(0, len(flags), batch_size):\n"
               "        batch = flags[start:start + batch_size]\n"
               "        total += sum(batch) / len(batch)\n"
               "        batches += 1\n"
               "    return [len(flags), total / batches]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(flags, batch_size):\n"
               "    return [len(flags), sum(flags) / len(flags)]\n"),
          }},
      .fixtures =
          {
              {"short final batch", "[1]*(2*N)+[0],2*N", "[2*N+1,2*N/(2*N+1)]"},
              {"final batch like the rest", "[1]*N+[0]*N+[1,0],2*N", "[2*N+2,0.5]"},
              {"batch size divides", "[1,0,0]*N,3", "[3*N,1/3]"},
              {"a hit in the final batch", "[0]*(3*N)+[1],3", "[3*N+1,1/(3*N+1)]"},
              {"batch of one", "[1,0,1]*N,1", "[3*N,2/3]"},
              {"misses in the final batch", "[1]*(5*N)+[0,0],5", "[5*N+2,5*N/(5*N+2)]"},
              {"all hits with a remainder", "[1]*(2*N+1),2", "[2*N+1,1.0]"},
          },
  };
  return k_mechanism;
}
