// Running reward moments
// ======================
//
// The failure. Reward and observation normalisation keep running moments
// (mean, var, count) merged batch by batch with the parallel algorithm of
// Chan et al.: delta = batch_mean - mean, tot = count + n, mean += delta *
// n / tot, M2 = var * count + batch_var * n + delta**2 * count * n / tot,
// var = M2 / tot. cleanrl issue 18 reports that its RunningMeanStd (taken
// from baselines) passed batch_count = 1 for a whole batch, so each batch
// weighed as one sample: the count grows by one per batch, the running mean
// is an equal-weight mean of batch means and the variance ignores the spread
// between batches. The broken path here merges every batch with n = 1.
//
// Why the unsuccessful fix fails. With the batch size counted, the remaining
// slip is the one reported in FastTD3's EmpiricalNormalization:
// the between-batch term uses delta2 = batch_mean - new_mean, recomputed
// after the mean moved, instead of the delta taken against the old mean, so
// the variance is too small whenever a batch's mean differs from the running
// mean. It is right for the first batch and for batches whose mean equals
// the running mean.
//
// Why the repair holds. The merge is Chan et al.'s: one delta against the
// old mean, used for both the mean and M2, and the true batch size. The C++
// evaluates every expression in the Python's order (float times int
// converts the int); the fixtures' batch sizes keep every count a power of
// two and the values dyadic, so all results are exact.
//
// Source: https://github.com/vwxyzjn/cleanrl/issues/18
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Merge { OneSamplePerBatch, DeltaAfterUpdate, Chan };

Result<Value> moments(const std::vector<std::vector<double>>& batches, Merge merge) {
  double mean = 0.0, var = 0.0;
  std::int64_t count = 0;
  for (const auto& batch : batches) {
    std::int64_t n = static_cast<std::int64_t>(batch.size());
    double total = 0.0;
    for (double x : batch) total += x;
    FAILMAP_TRY_ASSIGN(auto batch_mean, args::divide(total, static_cast<double>(n)));
    double square = 0.0;
    for (double x : batch) square += (x - batch_mean) * (x - batch_mean);
    FAILMAP_TRY_ASSIGN(auto batch_var, args::divide(square, static_cast<double>(n)));
    const double delta = batch_mean - mean;
    if (merge == Merge::OneSamplePerBatch) n = 1;
    FAILMAP_TRY_ASSIGN(auto tot, checked_add(count, n));
    const double dn = static_cast<double>(n), dcount = static_cast<double>(count), dtot = static_cast<double>(tot);
    FAILMAP_TRY_ASSIGN(auto step, args::divide(delta * dn, dtot));
    const double new_mean = mean + step;
    const double d = merge == Merge::DeltaAfterUpdate ? batch_mean - new_mean : delta;
    FAILMAP_TRY_ASSIGN(auto between, args::divide(d * d * dcount * dn, dtot));
    const double m2 = var * dcount + batch_var * dn + between;
    mean = new_mean;
    FAILMAP_TRY_ASSIGN(var, args::divide(m2, dtot));
    count = tot;
  }
  return Value::list({Value::floating(mean), Value::floating(var), Value::integer(count)});
}

Result<Value> broken(std::vector<std::vector<double>> batches) { return moments(batches, Merge::OneSamplePerBatch); }

Result<Value> unsuccessful(std::vector<std::vector<double>> batches) {
  return moments(batches, Merge::DeltaAfterUpdate);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<std::vector<double>> batches) { return moments(batches, Merge::Chan); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_running_reward_moments() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "running-reward-moments",
      .title = "Running reward moments",
      .source = "https://github.com/vwxyzjn/cleanrl/issues/18",
      .evaluation_group = {"running-moments"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Running reward statistics count each batch as one sample",
              .summary = "Running reward statistics count each batch as one sample.",
              .root_cause = "The running-moments update merges a batch's mean and variance with batch_count = 1, so "
                            "the count, the weights of the means and the between-batch variance are all wrong.",
              .failure = "The broken path merges every batch with n = 1: the count is the number of batches.",
              .unsuccessful_approach = "Counting the batch but computing the between-batch term from the mean after "
                                       "the update shrinks the variance whenever batch means differ.",
              .contract = "Start at mean 0.0, var 0.0, count 0; per batch (population mean and variance, n = len): "
                          "delta = batch_mean - mean, tot = count + n, mean += delta * n / tot, var = (var * count + "
                          "batch_var * n + delta * delta * count * n / tot) / tot, count = tot. Return [mean, var, "
                          "count].",
              .why_it_matters = "Rewards normalised with wrong statistics change the effective reward scale through "
                                "training, which PPO's clipping and value loss are sensitive to.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(batches):\n"
               "    mean = 0.0\n"
               "    var = 0.0\n"
               "    count = 0\n"
               "    for batch in batches:\n"
               "        n = len(batch)\n"
               "        total = 0.0\n"
               "        for x in batch:\n"
               "            total += x\n"
               "        batch_mean = total / n\n"
               "        square = 0.0\n"
               "        for x in batch:\n"
               "            square += (x - batch_mean) * (x - batch_mean)\n"
               "        batch_var = square / n\n"
               "        delta = batch_mean - mean\n"
               "        n = 1\n"
               "        tot = count + n\n"
               "        new_mean = mean + delta * n / tot\n"
               "        m2 = var * count + batch_var * n + delta * delta * count * n / tot\n"
               "        mean = new_mean\n"
               "        var = m2 / tot\n"
               "        count = tot\n"
               "    return [mean, var, count]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(batches):\n"
               "    mean = 0.0\n"
               "    var = 0.0\n"
               "    count = 0\n"
               "    for batch in batches:\n"
               "        n = len(batch)\n"
               "        total = 0.0\n"
               "        for x in batch:\n"
               "            total += x\n"
               "        batch_mean = total / n\n"
               "        square = 0.0\n"
               "        for x in batch:\n"
               "            square += (x - batch_mean) * (x - batch_mean)\n"
               "        batch_var = square / n\n"
               "        delta = batch_mean - mean\n"
               "        tot = count + n\n"
               "        new_mean = mean + delta * n / tot\n"
               "        delta2 = batch_mean - new_mean\n"
               "        m2 = var * count + batch_var * n + delta2 * delta2 * count * n / tot\n"
               "        mean = new_mean\n"
               "        var = m2 / tot\n"
               "        count = tot\n"
               "    return [mean, var, count]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(batches):\n"
               "    mean = 0.0\n"
               "    var = 0.0\n"
               "    count = 0\n"
               "    for batch in batches:\n"
               "        n = len(batch)\n"
               "        total = 0.0\n"
               "        for x in batch:\n"
               "            total += x\n"
               "        batch_mean = total / n\n"
               "        square = 0.0\n"
               "        for x in batch:\n"
               "            square += (x - batch_mean) * (x - batch_mean)\n"
               "        batch_var = square / n\n"
               "        delta = batch_mean - mean\n"
               "        tot = count + n\n"
               "        new_mean = mean + delta * n / tot\n"
               "        m2 = var * count + batch_var * n + delta * delta * count * n / tot\n"
               "        mean = new_mean\n"
               "        var = m2 / tot\n"
               "        count = tot\n"
               "    return [mean, var, count]\n"),
          }},
      .fixtures =
          {
              {"one batch", "[[1.0*N,3.0*N]]", "[2.0*N,1.0*N*N,2]"},
              {"two batches of two", "[[0.0,2.0*N],[4.0*N,6.0*N]]", "[3.0*N,5.0*N*N,4]"},
              {"three batches of mixed size", "[[2.0,2.0],[2.0*N,2.0*N],[0.0,0.0,4.0*N,4.0*N]]",
               "[0.5+1.5*N,0.75-1.5*N+2.75*N*N,8]"},
              {"batches of one sample", "[[4.0*N],[0.0]]", "[2.0*N,4.0*N*N,2]"},
              {"constant batches", "[[2.0*N,2.0*N],[6.0,6.0]]", "[3.0+1.0*N,9.0-6.0*N+1.0*N*N,4]"},
              {"one batch of four", "[[1.0*N,3.0*N,5.0*N,7.0*N]]", "[4.0*N,5.0*N*N,4]"},
              {"a spread first batch", "[[0.0,4.0],[2.0*N,2.0*N],[8.0,8.0,8.0,8.0]]",
               "[4.5+0.5*N,13.75-4.5*N+0.75*N*N,8]"},
          },
  };
  return k_mechanism;
}
