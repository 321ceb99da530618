// Resume batch skip
// =================
//
// The failure. A run is resumed from a checkpoint taken after S optimizer
// steps. To continue on the same data, the loader must skip to the batch the
// interrupted run would have read next. With K-batch gradient accumulation
// and a flushed final partial group, an epoch of E batches takes
// ceil(E / K) steps, so the position is epoch S // ceil(E / K) at batch
// offset (S % ceil(E / K)) * K. The broken path skips S batches, treating
// steps as batches: with E = 5, K = 2 and S = 4 it resumes in epoch 0 at
// batch 4, replaying most of epoch 1's data twice, where the contract says
// epoch 1, batch 2.
//
// Why the unsuccessful fix fails. Multiplying by the accumulation length,
// S * K batches, accounts for accumulation but assumes every step consumes
// exactly K batches. The flushed tail step consumes fewer, so each completed
// epoch leaves the position short: the same fixture resumes at epoch 1,
// batch 3 instead of batch 2, skipping a batch of data. It is right only when
// K divides E (there is no tail) or the run stopped inside its first epoch.
//
// Why the repair holds. It counts in the unit the checkpoint records,
// optimizer steps, and converts with the same steps-per-epoch the loop used
// (see steps-per-epoch-with-accumulation): whole epochs first, then K batches
// per step within the current epoch, where every step before the tail is a
// full group. Integer arithmetic only, checked in C++.
//
// transformers issue 5605 reports the skip of S batches and proposes S * K, the
// unsuccessful variant here (fixed in PR 8624).
// Source: https://github.com/huggingface/transformers/issues/5605
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// [position // period, position % period * scale]
Result<Value> split(std::int64_t position, std::int64_t period, std::int64_t scale) {
  FAILMAP_TRY_ASSIGN(auto epoch, checked_floordiv(position, period));
  FAILMAP_TRY_ASSIGN(auto rest, checked_mod(position, period));
  FAILMAP_TRY_ASSIGN(auto offset, checked_mul(rest, scale));
  return args::int_list_value({epoch, offset});
}

Result<Value> broken(std::int64_t batches, std::int64_t /*k*/, std::int64_t steps) { return split(steps, batches, 1); }

Result<Value> unsuccessful(std::int64_t batches, std::int64_t k, std::int64_t steps) {
  FAILMAP_TRY_ASSIGN(auto consumed, checked_mul(steps, k));
  return split(consumed, batches, 1);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t batches, std::int64_t k, std::int64_t steps) {
  FAILMAP_TRY_ASSIGN(auto sum, checked_add(batches, k));
  FAILMAP_TRY_ASSIGN(auto numerator, checked_sub(sum, 1));
  FAILMAP_TRY_ASSIGN(auto steps_per_epoch, checked_floordiv(numerator, k));
  return split(steps, steps_per_epoch, k);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_resume_batch_skip() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "resume-batch-skip",
      .title = "Resume batch skip",
      .source = "https://github.com/huggingface/transformers/issues/5605",
      .evaluation_group = {"step-accounting"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "A resumed run skips batches as if optimizer steps were batches",
              .summary = "A resumed run skips batches as if optimizer steps were batches.",
              .root_cause = "The checkpoint records optimizer steps, but the resume logic skips that many batches, "
                            "ignoring accumulation and the flushed partial group at the end of each epoch.",
              .failure = "The broken path resumes at (S // E, S % E): too early under accumulation, so data already "
                         "trained on is replayed.",
              .unsuccessful_approach = "Skipping S * K batches assumes every step consumes K batches and drifts "
                                       "past the data whenever an epoch ends with a partial group.",
              .contract = "After S optimizer steps with E batches per epoch and K-batch accumulation with a flushed "
                          "final group, resume at epoch S // ceil(E / K) and batch offset (S % ceil(E / K)) * K.",
              .why_it_matters = "A resumed run must see exactly the data the uninterrupted run would have seen, or "
                                "preemptible training silently changes the data order and mix.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(batches, k, steps):\n"
               "    return [steps // batches, steps % batches]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(batches, k, steps):\n"
               "    consumed = steps * k\n"
               "    return [consumed // batches, consumed % batches]\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(batches, k, steps):\n"
               "    steps_per_epoch = (batches + k - 1) // k\n"
               "    return [steps // steps_per_epoch, steps % steps_per_epoch * k]\n"),
          }},
      .fixtures =
          {
              {"flushed tail crossed", "2*N+1,2,2*N+1", "[1,2*N]"},
              {"start of training", "2*N+1,2,0", "[0,0]"},
              {"no accumulation", "3*N,1,N+1", "[0,N+1]"},
              {"whole epochs", "2*N,2,N", "[1,0]"},
              {"inside the first epoch", "4*N,2,N", "[0,2*N]"},
              {"second epoch after a tail", "2*N+1,2,3*N+2", "[2,2*N]"},
              {"resume after one epoch", "4*N+1,2,2*N+2", "[1,2]"},
      },
  };
  return k_mechanism;
}
