// Bucketed batch count
// ====================
//
// The failure. Aspect-ratio or length bucketing groups samples into buckets
// and cuts each bucket into batches separately, so every bucket can end in a
// short batch. AnimaLoraStudio's PR 102 reports both halves of the bug in
// its BucketBatchSampler: drop_last=True threw away len(bucket) % batch_size
// samples of every bucket (a bucket smaller than the batch size was never
// trained on), and __len__ was the global n // batch_size, which ignores the
// per-bucket remainders, so steps_per_epoch and the scheduler's total steps
// were off. The broken path here is that sampler: it reports n //
// batch_size batches and yields only the full batches of each bucket.
//
// Why the unsuccessful fix fails. Keeping the short batches but reporting
// the length a plain DataLoader would, ceil(n / batch_size), counts one
// short batch in total instead of one per bucket: with buckets of 3 and 1
// samples and batch size 2 it reports 2 batches where the sampler yields 3.
// It is right only when at most one bucket leaves a remainder.
// (Constructed: the length formula of an unbucketed loader.)
//
// Why the repair holds. Each bucket contributes ceil(size / batch_size)
// batches and all of its samples, so the reported length is the number of
// batches the sampler yields and every sample is seen once per epoch. The
// PR's new __len__ sums per bucket the same way. Integer arithmetic, checked.
//
// Source: https://github.com/WalkingMeatAxolotl/AnimaLoraStudio/pull/102
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Counting { GlobalFloorDropTails, GlobalCeil, PerBucket };

// [batches reported, samples yielded]
Result<Value> counted(args::IntListView bucket_sizes, std::int64_t batch_size, Counting counting) {
  std::int64_t total = 0, kept = 0, batches = 0;
  for (std::size_t i = 0; i < bucket_sizes.size(); ++i) {
    const std::int64_t size = bucket_sizes[i];
    FAILMAP_TRY_ASSIGN(total, checked_add(total, size));
    if (counting == Counting::GlobalFloorDropTails) {
      FAILMAP_TRY_ASSIGN(auto full, checked_floordiv(size, batch_size));
      FAILMAP_TRY_ASSIGN(auto samples, checked_mul(full, batch_size));
      FAILMAP_TRY_ASSIGN(kept, checked_add(kept, samples));
    } else if (counting == Counting::PerBucket) {
      FAILMAP_TRY_ASSIGN(auto padded, checked_add(size, batch_size));
      FAILMAP_TRY_ASSIGN(auto numerator, checked_sub(padded, 1));
      FAILMAP_TRY_ASSIGN(auto count, checked_floordiv(numerator, batch_size));
      FAILMAP_TRY_ASSIGN(batches, checked_add(batches, count));
    }
  }
  if (counting == Counting::PerBucket) {
    return args::int_list_value({batches, total});
  }
  if (counting == Counting::GlobalFloorDropTails) {
    FAILMAP_TRY_ASSIGN(auto reported, checked_floordiv(total, batch_size));
    return args::int_list_value({reported, kept});
  }
  FAILMAP_TRY_ASSIGN(auto padded, checked_add(total, batch_size));
  FAILMAP_TRY_ASSIGN(auto numerator, checked_sub(padded, 1));
  FAILMAP_TRY_ASSIGN(auto reported, checked_floordiv(numerator, batch_size));
  return args::int_list_value({reported, total});
}

Result<Value> broken(args::IntListView bucket_sizes, std::int64_t batch_size) {
  return counted(bucket_sizes, batch_size, Counting::GlobalFloorDropTails);
}

Result<Value> unsuccessful(args::IntListView bucket_sizes, std::int64_t batch_size) {
  return counted(bucket_sizes, batch_size, Counting::GlobalCeil);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView bucket_sizes, std::int64_t batch_size) {
  return counted(bucket_sizes, batch_size, Counting::PerBucket);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_bucket_batch_count() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "bucket-batch-count",
      .title = "Bucketed batch count",
      .source = "https://github.com/WalkingMeatAxolotl/AnimaLoraStudio/pull/102",
      .evaluation_group = {"length-bucketing"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "A bucketed sampler drops every bucket's tail and miscounts its batches",
              .summary = "A bucketed sampler drops every bucket's tail and miscounts its batches.",
              .root_cause = "Each bucket is cut into batches on its own, but the sampler drops each bucket's short "
                            "batch and reports its length as if the dataset were one bucket.",
              .failure = "The broken path reports n // batch_size batches and yields only the full batches of each "
                         "bucket.",
              .unsuccessful_approach = "Keeping the short batches but reporting ceil(n / batch_size) counts one "
                                       "short batch in total instead of one per bucket.",
              .contract = "Every bucket is cut into batches of batch_size with its final short batch kept; return "
                          "[number of batches per epoch, number of samples yielded per epoch].",
              .why_it_matters = "Dropped tails mean rare buckets are never trained on, and a wrong length skews "
                                "steps per epoch and the learning-rate schedule's total steps.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(bucket_sizes, batch_size):\n"
               "    total = sum(bucket_sizes)\n"
               "    kept = sum(size // batch_size * batch_size for size in bucket_sizes)\n"
               "    return [total // batch_size, kept]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(bucket_sizes, batch_size):\n"
               "    total = sum(bucket_sizes)\n"
               "    return [(total + batch_size - 1) // batch_size, total]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(bucket_sizes, batch_size):\n"
               "    batches = 0\n"
               "    samples = 0\n"
               "    for size in bucket_sizes:\n"
               "        batches += (size + batch_size - 1) // batch_size\n"
               "        samples += size\n"
               "    return [batches, samples]\n"),
          }},
      .fixtures =
          {
              {"one bucket with a remainder", "[2*N+1,2],2", "[N+2,2*N+3]"},
              {"two buckets with remainders", "[2*N+1,1],2", "[N+2,2*N+2]"},
              {"buckets smaller than a batch", "[1]*N,2", "[N,N]"},
              {"one remainder, batch size three", "[6*N,6*N+2],3", "[4*N+1,12*N+2]"},
              {"buckets that divide", "[4*N,4*N],4", "[2*N,8*N]"},
              {"the same buckets, batch size two", "[6*N,6*N+2],2", "[6*N+1,12*N+2]"},
              {"many buckets with remainders", "[5,5,5]*N,4", "[6*N,15*N]"},
          },
  };
  return k_mechanism;
}
