// Loss summed over ranks
// ======================
//
// The failure. Each rank computes the mean loss of its own samples, and the
// logged (or early-stopping) loss is reduced across ranks with
// all_reduce's default operation, SUM. The result is the sum of the rank
// means: with two ranks whose means are both 2.0 the job reports 4.0, and the
// value scales with the number of GPUs. A report to HRNet-Semantic-Segmentation
// (https://github.com/HRNet/HRNet-Semantic-Segmentation/issues/34) reports
// this: "the loss value logged is the sum over different processes, but it
// should be averaged".
//
// Why the unsuccessful fix fails. The usual patch divides the reduced sum by
// the world size, so the job reports the mean of the rank means. That is the
// dataset mean only when every rank holds the same number of samples; with
// uneven shards (a short last batch, variable-size graphs or sequences) the
// small ranks are overweighted. facebookresearch/fairchem pull request 269
// replaced exactly this ("first calculated the loss average per DDP replica
// and then averaged across replicas. This leads to wrong results since not
// every replica has the same number of atoms or even systems").
//
// Why the repair holds. It reduces the sufficient statistics, not the
// means: the SUM of the per-rank loss sums and the SUM of the per-rank sample
// counts, divided once. That is the mean over all samples for any split of
// the data over ranks. Float sums are accumulated left to right as the
// Python loop does (no math.fsum, no sum() of floats), so the C++ result is
// the same double.
//
// Source: https://github.com/facebookresearch/fairchem/pull/269
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  const std::vector<double>& sums;
  args::IntListView counts;
  /// zip(sums, counts): the number of ranks visited.
  std::size_t ranks() const { return std::min(sums.size(), counts.size()); }
};

// sum over ranks of sums[r] / counts[r], left to right.
Result<double> summed_means(const Input& in) {
  double total = 0.0;
  for (std::size_t r = 0; r < in.ranks(); ++r) {
    FAILMAP_TRY_ASSIGN(auto mean, args::divide(in.sums[r], static_cast<double>(in.counts[r])));
    total += mean;
  }
  return total;
}

Result<Value> broken(const std::vector<double>& sums, args::IntListView counts) {
  const Input in{sums, counts};
  FAILMAP_TRY_ASSIGN(auto total, summed_means(in));
  return Value::floating(total);
}

Result<Value> unsuccessful(const std::vector<double>& sums, args::IntListView counts) {
  const Input in{sums, counts};
  FAILMAP_TRY_ASSIGN(auto total, summed_means(in));
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(in.sums.size())));
  return Value::floating(mean);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& sums, args::IntListView counts) {
  const Input in{sums, counts};
  double total = 0.0;
  std::int64_t count = 0;
  for (std::size_t r = 0; r < in.ranks(); ++r) {
    total += in.sums[r];
    FAILMAP_TRY_ASSIGN(count, checked_add(count, in.counts[r]));
  }
  FAILMAP_TRY_ASSIGN(auto mean, args::divide(total, static_cast<double>(count)));
  return Value::floating(mean);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_rank_mean_of_means() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "rank-mean-of-means",
      .title = "Loss summed over ranks",
      .source = "https://github.com/facebookresearch/fairchem/pull/269",
      .evaluation_group = {"rank-reduction"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Per-rank mean losses are summed across ranks",
              .summary = "Per-rank mean losses are summed across ranks.",
              .root_cause = "Each rank reduces its samples to a mean first, and the cross-rank all_reduce uses its "
                            "default operation, SUM.",
              .failure = "The broken path reports the sum of the rank means, which grows with the number of "
                         "ranks.",
              .unsuccessful_approach = "Dividing the summed means by the world size gives the mean of rank means, "
                                       "which overweights ranks holding fewer samples.",
              .contract = "Given each rank's loss sum and sample count, return the mean loss over all samples: the "
                          "total of the sums divided by the total of the counts.",
              .why_it_matters = "A loss that changes with the number of GPUs or with how unevenly the data is "
                                "sharded misleads early stopping, checkpoint selection and comparisons between runs.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(sums, counts):\n"
               "    reduced = 0.0\n"
               "    for total, count in zip(sums, counts):\n"
               "        reduced += total / count\n"
               "    return reduced\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(sums, counts):\n"
               "    reduced = 0.0\n"
               "    for total, count in zip(sums, counts):\n"
               "        reduced += total / count\n"
               "    return reduced / len(sums)\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(sums, counts):\n"
               "    loss = 0.0\n"
               "    samples = 0\n"
               "    for total, count in zip(sums, counts):\n"
               "        loss += total\n"
               "        samples += count\n"
               "    return loss / samples\n"),
          }},
      .fixtures =
          {
              {"uneven ranks, equal means", "[6.0*N,2.0],[3*N,1]", "2.0"},
              {"uneven ranks", "[4.0*N,1.0],[N,1]", "(4.0*N+1.0)/(N+1)"},
              {"single rank", "[3.0*N],[N]", "3.0"},
              {"equal counts", "[2.0,4.0*N],[2,2]", "(2.0+4.0*N)/4"},
              {"one rank holds most samples", "[1.0,9.0*N],[1,3*N]", "(1.0+9.0*N)/(1+3*N)"},
              {"four ranks", "[1.0,1.0,1.0,6.0*N],[1,1,1,2*N]", "(3.0+6.0*N)/(3+2*N)"},
              {"zero loss", "[0.0,0.0],[N,1]", "0.0"},
          },
  };
  return k_mechanism;
}
