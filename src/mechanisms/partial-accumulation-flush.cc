// Partial accumulation flush
// ==========================
//
// The failure. With gradient accumulation over K batches, the loop steps the
// optimizer when the batch counter reaches a multiple of K. When the epoch's
// batch count is not a multiple of K, the last few batches are accumulated and
// then never applied: the next epoch zeroes the gradients, or training ends.
// Each update here is modelled as the mean loss of the batches it covers, so
// losses [2.0, 4.0, 6.0] at K = 2 should give two updates, [3.0, 6.0]; the
// broken loop gives one, [3.0], and the third batch has no effect at all.
//
// Why the unsuccessful fix fails. Adding a flush after the loop applies the
// final partial group, but it reuses the loop's normaliser K. The partial
// group holds fewer than K batches, so its update is shrunk by len/K: the
// fixture gives [3.0, 3.0]. It only looks right when the tail's losses are
// zero, which is how a quick smoke test with a fresh model can miss it.
//
// Why the repair holds. It slices the batch stream into groups of at most K
// and divides each group's sum by that group's own length. Full groups and
// the tail go through the same code, so the tail is neither dropped nor
// down-weighted. Group sums use an explicit float loop, mirrored in C++ in
// the same order.
//
// Lightning issue 19987 finds the final partial window stepped but divided by
// accumulate_grad_batches, the unsuccessful variant here.
// Source: https://github.com/Lightning-AI/pytorch-lightning/issues/19987
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// The loop shared by the broken and the unsuccessful strategy: step when
// (i + 1) % k == 0, dividing by k; `flush` adds the final partial group.
enum class Flush { No, DividedByK };

Result<Value> step_on_multiple(const std::vector<double>& losses, std::int64_t k, Flush flush) {
  std::vector<double> updates;
  double total = 0.0;
  for (std::int64_t i = 0; i < args::length(losses); ++i) {
    total += losses[static_cast<std::size_t>(i)];
    FAILMAP_TRY_ASSIGN(auto m, checked_mod(i + 1, k));
    if (m == 0) {
      FAILMAP_TRY_ASSIGN(auto u, args::divide(total, static_cast<double>(k)));
      updates.push_back(u);
      total = 0.0;
    }
  }
  if (flush == Flush::DividedByK) {
    FAILMAP_TRY_ASSIGN(auto rest, checked_mod(args::length(losses), k));
    if (rest != 0) {
      FAILMAP_TRY_ASSIGN(auto u, args::divide(total, static_cast<double>(k)));
      updates.push_back(u);
    }
  }
  return args::float_list_value(updates);
}

Result<Value> broken(const std::vector<double>& losses, std::int64_t k) {
  return step_on_multiple(losses, k, Flush::No);
}

Result<Value> unsuccessful(const std::vector<double>& losses, std::int64_t k) {
  return step_on_multiple(losses, k, Flush::DividedByK);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<double>& losses, std::int64_t k) {
  if (k == 0) return input_error("range() arg 3 must not be zero");
  std::vector<double> updates;
  if (k < 0) return args::float_list_value(updates);  // range(0, n, negative) is empty
  const std::size_t n = losses.size();
  const auto step = static_cast<std::size_t>(k);
  for (std::size_t start = 0; start < n; start += step) {
    const std::size_t end = step >= n - start ? n : start + step;
    double total = 0.0;
    for (std::size_t i = start; i < end; ++i) total += losses[i];
    updates.push_back(total / static_cast<double>(end - start));
  }
  return args::float_list_value(updates);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_partial_accumulation_flush() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "partial-accumulation-flush",
      .title = "Partial accumulation flush",
      .source = "https://github.com/Lightning-AI/pytorch-lightning/issues/19987",
      .evaluation_group = {"gradient-accumulation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "The last partial accumulation group never reaches the optimizer",
              .summary = "The last partial accumulation group never reaches the optimizer.",
              .root_cause = "The optimizer steps only when the batch counter reaches a multiple of the accumulation "
                            "length, so a final group shorter than that length is accumulated and then discarded.",
              .failure = "The broken path emits one update per full group of K batches and none for the trailing "
                         "partial group.",
              .unsuccessful_approach = "Flushing the trailing group but dividing it by K shrinks its update by the "
                                       "fraction of the group that is missing.",
              .contract = "Emit one update per group of K consecutive batch losses plus one for a final partial "
                          "group, each the mean of the losses of its own batches.",
              .why_it_matters = "Every batch an epoch reads must influence the model with the same weight, or data "
                                "at the end of each epoch is silently under-trained.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(losses, k):\n"
               "    updates = []\n"
               "    total = 0.0\n"
               "    for i, loss in enumerate(losses):\n"
               "        total += loss\n"
               "        if (i + 1) % k == 0:\n"
               "            updates.append(total / k)\n"
               "            total = 0.0\n"
               "    return updates\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(losses, k):\n"
               "    updates = []\n"
               "    total = 0.0\n"
               "    for i, loss in enumerate(losses):\n"
               "        total += loss\n"
               "        if (i + 1) % k == 0:\n"
               "            updates.append(total / k)\n"
               "            total = 0.0\n"
               "    if len(losses) % k:\n"
               "        updates.append(total / k)\n"
               "    return updates\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(losses, k):\n"
               "    updates = []\n"
               "    for start in range(0, len(losses), k):\n"
               "        group = losses[start:start + k]\n"
               "        total = 0.0\n"
               "        for loss in group:\n"
               "            total += loss\n"
               "        updates.append(total / len(group))\n"
               "    return updates\n"),
          }},
      .fixtures =
          {
              {"trailing partial group", "[2.0*N,4.0*N,6.0*N],2", "[3.0*N,6.0*N]"},
              {"exact multiple", "[1.0*N,3.0*N,5.0,7.0],2", "[2.0*N,6.0]"},
              {"fewer batches than k", "[4.0]*N,N+1", "[4.0]"},
              {"no accumulation", "[1.0*N,2.0,3.0],1", "[1.0*N,2.0,3.0]"},
              {"empty epoch", "[],N", "[]"},
              {"zero-loss tail", "[2.0*N,2.0*N,0.0],2", "[2.0*N,0.0]"},
              {"long tail", "[3.0*N,3.0*N,3.0*N,6.0,6.0],3", "[3.0*N,6.0]"},
          },
  };
  return k_mechanism;
}
