// Mean-synced batch-size floor
// ============================
//
// The failure. An epoch-level metric logged with sync_dist=True keeps two
// accumulators per rank: the batch-size-weighted sum of the logged values
// (a float) and the cumulated batch size (an integer tensor). At the end of
// the epoch both are mean-reduced across ranks and divided. A mean over an
// integer tensor floors (NCCL's AVG divides in integers; gloo's SUM then
// division is copied back into the integer tensor), so when the ranks'
// batch sizes add up to a total that the world size does not divide (uneven
// last batches, uneven iterable shards) the denominator is too small and
// every such metric is inflated by the same factor.
// Lightning-AI/pytorch-lightning issue 21838 reports it with the factor
// (sum(bs) / W) / floor(sum(bs) / W).
//
// Why the unsuccessful fix fails. Side-stepping the shared accumulators by
// having each rank log its own epoch mean and mean-syncing that float gives
// the mean of the rank means: no floor, but every rank weighs the same
// however many samples it saw, so it is right only when the ranks' sample
// counts or their means are equal. (Constructed: the thread analyses the
// floor; this is the tempting way around it.)
//
// Why the repair holds. Both accumulators are SUM-reduced (the integer one
// stays exact), and the division happens once, after the reduction: the
// total weighted value over the total number of samples. Float sums run left
// to right as in the Python loop, and the final division is Python's float /
// int, so the C++ double is the same.
//
// Source: https://github.com/Lightning-AI/pytorch-lightning/issues/21838
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  const std::vector<double>& values;
  args::IntListView sizes;
  std::size_t ranks() const { return std::min(values.size(), sizes.size()); }
};

struct Totals {
  double value = 0.0;
  std::int64_t size = 0;
};

Result<Totals> totals(const Input& in) {
  Totals t;
  for (std::size_t r = 0; r < in.ranks(); ++r) {
    t.value += in.values[r];
    FAILMAP_TRY_ASSIGN(auto s, checked_add(t.size, in.sizes[r]));
    t.size = s;
  }
  return t;
}

Result<Value> broken(const std::vector<double>& values, args::IntListView sizes) {
  const Input in{values, sizes};
  FAILMAP_TRY_ASSIGN(auto t, totals(in));
  const auto world = static_cast<std::int64_t>(in.values.size());
  FAILMAP_TRY_ASSIGN(auto value, args::divide(t.value, static_cast<double>(world)));
  FAILMAP_TRY_ASSIGN(auto size, checked_floordiv(t.size, world));
  FAILMAP_TRY_ASSIGN(auto r, args::divide(value, static_cast<double>(size)));
  return Value::floating(r);
}

Result<Value> unsuccessful(const std::vector<double>& values, args::IntListView sizes) {
  const Input in{values, sizes};
  double total = 0.0;
  for (std::size_t r = 0; r < in.ranks(); ++r) {
    FAILMAP_TRY_ASSIGN(auto mean, args::divide(in.values[r], static_cast<double>(in.sizes[r])));
    total += mean;
  }
  FAILMAP_TRY_ASSIGN(auto r, args::divide(total, static_cast<double>(in.values.size())));
  return Value::floating(r);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& values, args::IntListView sizes) {
  const Input in{values, sizes};
  FAILMAP_TRY_ASSIGN(auto t, totals(in));
  FAILMAP_TRY_ASSIGN(auto r, args::divide(t.value, static_cast<double>(t.size)));
  return Value::floating(r);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_sync_dist_batch_size_floor() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "sync-dist-batch-size-floor",
      .title = "Mean-synced batch-size floor",
      .source = "https://github.com/Lightning-AI/pytorch-lightning/issues/21838",
      .evaluation_group = {"rank-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "An integer mean of batch sizes inflates a synced epoch metric",
              .summary = "An integer mean of batch sizes inflates a synced epoch metric.",
              .root_cause = "The weighted value sum and the integer batch-size count are each mean-reduced across "
                            "ranks, and the integer mean floors.",
              .failure = "The broken path divides the mean weighted value by the floored mean batch size, which "
                         "inflates the metric whenever the total batch size is not a multiple of the world size.",
              .unsuccessful_approach = "Mean-syncing each rank's own epoch mean avoids the floor but weighs every "
                                       "rank equally, whatever its number of samples.",
              .contract = "Given each rank's batch-size-weighted value sum and its cumulated batch size, return the "
                          "total value sum divided by the total batch size.",
              .why_it_matters = "A uniformly inflated validation metric shifts early stopping and model selection "
                                "and makes runs with different world sizes or shard layouts incomparable.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(values, sizes):\n"
               "    world = len(values)\n"
               "    value = 0.0\n"
               "    size = 0\n"
               "    for v, s in zip(values, sizes):\n"
               "        value += v\n"
               "        size += s\n"
               "    return (value / world) / (size // world)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(values, sizes):\n"
               "    total = 0.0\n"
               "    for v, s in zip(values, sizes):\n"
               "        total += v / s\n"
               "    return total / len(values)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(values, sizes):\n"
               "    value = 0.0\n"
               "    size = 0\n"
               "    for v, s in zip(values, sizes):\n"
               "        value += v\n"
               "        size += s\n"
               "    return value / size\n"),
          }},
      .fixtures =
          {
              {"uneven ranks", "[1.0*N,9.0*(N+1)],[N,N+1]", "(1.0*N+9.0*(N+1))/(2*N+1)"},
              {"equal rank means, odd total", "[2.0*N,2.0*N+2.0],[N,N+1]", "2.0"},
              {"even total", "[4.0,8.0*N],[2,2]", "(4.0+8.0*N)/4"},
              {"single rank", "[5.0*N],[N]", "5.0"},
              {"three ranks", "[1.0,1.0,1.0*N],[1,1,N]", "1.0"},
              {"uneven means", "[6.0*N,1.0],[2*N,1]", "(6.0*N+1.0)/(2*N+1)"},
              {"one sample per rank", "[1.0,3.0*N,5.0],[1,1,1]", "(6.0+3.0*N)/3"},
          },
  };
  return k_mechanism;
}
