// K-fold test folds that drop the remainder
// =========================================
//
// The failure. K-fold cross-validation must put every sample in exactly one
// test fold. With n not divisible by k, fold boundaries computed as
// n // k * fold leave the last n % k samples out of every test fold: they are
// always trained on and never scored. The reviewer of
// open-mmlab/mmpretrain pull request 563 caught exactly this in its K-fold
// dataset wrapper ("29 samples split into 5 folds: for the last fold
// test_start = 20 and test_end = 25"); deeplearning4j issue 5974 reports a
// KFoldIterator whose last fold came out tiny or empty for the same reason.
// n = 7, k = 3 gives test folds of sizes [2, 2, 2] instead of [3, 2, 2].
//
// Why the unsuccessful fix fails. Making every fold ceil(n / k) samples and
// the last one whatever is left (Open-Deep-ML/DML-OpenProblem pull request
// 51: "the fold size should be as large as possible (np.ceil())") covers
// every sample, and it matches the balanced sizes when n % k is 0 or k - 1.
// For other remainders the last fold is short by up to k - 1, or even
// negative: n = 7, k = 3 gives [3, 3, 1], and n = 5, k = 4 gives
// [2, 2, 2, -1].
//
// Why the repair holds. The first n % k folds get n // k + 1 samples and
// the others n // k, as scikit-learn's KFold does: every sample is tested
// once and fold sizes differ by at most one. Integer arithmetic only.
//
// Source: https://github.com/open-mmlab/mmpretrain/pull/563
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Sizes { FloorDropsRemainder, CeilLastTakesRest, FirstFoldsOneMore };

Result<Value> fold_sizes(std::int64_t n, std::int64_t k, Sizes how) {
  if (k <= 0 || k > 1000000) return input_error("ValueError: k out of range for this reproducer");
  FAILMAP_TRY_ASSIGN(auto q, checked_floordiv(n, k));
  FAILMAP_TRY_ASSIGN(auto r, checked_mod(n, k));
  std::vector<std::int64_t> out;
  switch (how) {
    case Sizes::FloorDropsRemainder:
      out.assign(static_cast<std::size_t>(k), q);
      break;
    case Sizes::CeilLastTakesRest: {
      FAILMAP_TRY_ASSIGN(auto nq, checked_floordiv(-n, k));
      const std::int64_t c = -nq;
      out.assign(static_cast<std::size_t>(k - 1), c);
      FAILMAP_TRY_ASSIGN(auto used, checked_mul(c, k - 1));
      FAILMAP_TRY_ASSIGN(auto rest, checked_sub(n, used));
      out.push_back(rest);
      break;
    }
    case Sizes::FirstFoldsOneMore:
      for (std::int64_t f = 0; f < k; ++f) out.push_back(f < r ? q + 1 : q);
      break;
  }
  return args::int_list_value(out);
}

Result<Value> broken(std::int64_t n, std::int64_t k) { return fold_sizes(n, k, Sizes::FloorDropsRemainder); }

Result<Value> unsuccessful(std::int64_t n, std::int64_t k) { return fold_sizes(n, k, Sizes::CeilLastTakesRest); }

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t n, std::int64_t k) { return fold_sizes(n, k, Sizes::FirstFoldsOneMore); }
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_kfold_remainder() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "kfold-remainder",
      .title = "K-fold test folds that drop the remainder",
      .source = "https://github.com/open-mmlab/mmpretrain/pull/563",
      .evaluation_group = {"fold-partition"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {100000},
      .prose =
          {
              .case_title = "K-fold splits never test the last n % k samples",
              .summary = "K-fold splits never test the last n % k samples.",
              .root_cause = "Each test fold is n // k samples starting at n // k * fold, so the n % k samples after "
                            "the last fold are in no test fold.",
              .failure = "The broken path's folds cover only k * (n // k) samples; the remainder is always trained "
                         "on and never scored.",
              .unsuccessful_approach = "Folds of ceil(n / k) with the rest in the last fold cover every sample but "
                                       "leave the last fold short, or negative, for most remainders.",
              .contract = "Return the k test-fold sizes of k-fold cross-validation over n samples: the first n % k "
                          "folds hold n // k + 1 samples, the others n // k.",
              .why_it_matters = "Cross-validated scores that never test some samples, or that rest on a tiny last "
                                "fold, are biased and noisier than the method promises.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(n, k):\n"
               "    size = n // k\n"
               "    return [size * (f + 1) - size * f for f in range(k)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(n, k):\n"
               "    size = -(-n // k)\n"
               "    return [size] * (k - 1) + [n - size * (k - 1)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(n, k):\n"
               "    q, r = divmod(n, k)\n"
               "    return [q + 1 if f < r else q for f in range(k)]\n"),
          }},
      .fixtures =
          {
              {"a remainder of k - 1", "3*N+2,3", "[N+1,N+1,N]"},
              {"a remainder of one in four folds", "4*N+1,4", "[N+1,N,N,N]"},
              {"a remainder of one in three folds", "3*N+1,3", "[N+1,N,N]"},
              {"no remainder, three folds", "12*N,3", "[4*N,4*N,4*N]"},
              {"a remainder of k - 1, five folds", "5*N+4,5", "[N+1,N+1,N+1,N+1,N]"},
              {"no remainder, four folds", "12*N,4", "[3*N,3*N,3*N,3*N]"},
              {"a remainder of two in four folds", "4*N+2,4", "[N+1,N+1,N,N]"},
          },
  };
  return k_mechanism;
}
