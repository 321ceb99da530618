// Reshuffle seed per epoch
// ========================
//
// The failure. A distributed sampler shuffles with its own generator,
// seeded with seed + epoch, so that every rank draws the same permutation
// and splits it without overlap. The epoch is whatever the training loop
// last passed to set_epoch(); a loop that never calls it shuffles every
// epoch with seed + 0, and the "shuffled" data arrives in the same order
// epoch after epoch (pytorch/pytorch issue 31771: "each epoch samples the
// data in the same order").
//
// Why the unsuccessful fix fails. Proposed in pytorch/pytorch issue 11324
// (https://github.com/pytorch/pytorch/issues/11324): let the sampler
// increment its own epoch counter each time it is iterated, so nobody has to
// call set_epoch(). That reshuffles a run that starts at epoch 0, but the
// counter lives in the process: a run resumed at epoch E starts counting at
// 0 again and replays the permutations of epochs 0, 1, ... instead of
// continuing with E, E + 1, ...; the data order of a resumed run differs
// from the uninterrupted one.
//
// Why the repair holds. The loop passes the epoch it is about to run,
// start_epoch + k, which is the number the checkpoint restores, so the
// permutation of each epoch is a function of (seed, epoch) alone and the same
// on every rank and after every resume. The permutation is modelled as a
// rotation of the index list by the generator's seed, [(i + s) % n], which
// keeps the expected orders expressible; what the mechanism tests is which
// seed each epoch uses. Integer arithmetic only, checked in C++.
//
// Source: https://github.com/pytorch/pytorch/issues/31771
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  std::int64_t n;
  std::int64_t seed;
  std::int64_t start_epoch;
  std::int64_t epochs;
};

// shuffled(n, seed) = [(i + seed) % n for i in range(n)]
Result<Value> shuffled(std::int64_t n, std::int64_t seed) {
  Value::List order;
  for (std::int64_t i = 0; i < n; ++i) {
    FAILMAP_TRY_ASSIGN(auto s, checked_add(i, seed));
    FAILMAP_TRY_ASSIGN(auto index, checked_mod(s, n));
    order.push_back(Value::integer(index));
  }
  return Value::list(std::move(order));
}

// One permutation per epoch k = 0 .. epochs - 1, with the seed
// seed + (from_start ? start_epoch : 0) + (advance ? k : 0).
Result<Value> permutations(const Input& in, bool from_start, bool advance) {
  Value::List out;
  for (std::int64_t k = 0; k < in.epochs; ++k) {
    std::int64_t seed = in.seed;
    if (from_start) {
      FAILMAP_TRY_ASSIGN(seed, checked_add(seed, in.start_epoch));
    }
    if (advance) {
      FAILMAP_TRY_ASSIGN(seed, checked_add(seed, k));
    }
    FAILMAP_TRY_ASSIGN(auto order, shuffled(in.n, seed));
    out.push_back(std::move(order));
  }
  return Value::list(std::move(out));
}

Result<Value> broken(std::int64_t n, std::int64_t seed, std::int64_t start_epoch, std::int64_t epochs) {
  const Input in{n, seed, start_epoch, epochs};
  return permutations(in, false, false);
}

Result<Value> unsuccessful(std::int64_t n, std::int64_t seed, std::int64_t start_epoch, std::int64_t epochs) {
  const Input in{n, seed, start_epoch, epochs};
  return permutations(in, false, true);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t n, std::int64_t seed, std::int64_t start_epoch, std::int64_t epochs) {
  const Input in{n, seed, start_epoch, epochs};
  return permutations(in, true, true);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_set_epoch_reshuffle() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "set-epoch-reshuffle",
      .title = "Reshuffle seed per epoch",
      .source = "https://github.com/pytorch/pytorch/issues/31771",
      .evaluation_group = {"epoch-seeded-order"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Every epoch is shuffled with the seed of epoch zero",
              .summary = "Every epoch is shuffled with the seed of epoch zero.",
              .root_cause = "The sampler seeds its shuffle with seed + epoch, and the training loop never tells it "
                            "the epoch (set_epoch is never called).",
              .failure = "The broken path shuffles every epoch with seed + 0, so each epoch sees the data in the "
                         "same order.",
              .unsuccessful_approach = "Letting the sampler count its own epochs reshuffles a fresh run, but the "
                                       "counter restarts at zero when a run is resumed.",
              .contract = "For epochs start_epoch .. start_epoch + epochs - 1, return each epoch's order, "
                          "shuffled(n, seed + epoch), where shuffled(n, s) = [(i + s) % n for i in range(n)].",
              .why_it_matters = "Without a fresh order per epoch, batches repeat their composition every epoch and "
                                "a resumed run trains on a different data order than the uninterrupted one.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def shuffled(n, seed):\n"
               "    return [(i + seed) % n for i in range(n)]\n"
               "def solve(n, seed, start_epoch, epochs):\n"
               "    return [shuffled(n, seed) for epoch in range(start_epoch, start_epoch + epochs)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def shuffled(n, seed):\n"
               "    return [(i + seed) % n for i in range(n)]\n"
               "def solve(n, seed, start_epoch, epochs):\n"
               "    return [shuffled(n, seed + counter) for counter in range(epochs)]\n"},
              FAILMAP_REPAIRED(repaired,
               "def shuffled(n, seed):\n"
               "    return [(i + seed) % n for i in range(n)]\n"
               "def solve(n, seed, start_epoch, epochs):\n"
               "    return [shuffled(n, seed + epoch) for epoch in range(start_epoch, start_epoch + epochs)]\n"),
          }},
      .fixtures =
          {
              {"second epoch reshuffles", "3,N,0,2", "[[N%3,(N+1)%3,(N+2)%3],[(N+1)%3,(N+2)%3,(N+3)%3]]"},
              {"resumed for two epochs", "3,N,1,2", "[[(N+1)%3,(N+2)%3,(N+3)%3],[(N+2)%3,(N+3)%3,(N+4)%3]]"},
              {"single epoch from scratch", "4,N,0,1", "[[N%4,(N+1)%4,(N+2)%4,(N+3)%4]]"},
              {"three epochs", "2,N,0,3", "[[N%2,(N+1)%2],[(N+1)%2,N%2],[N%2,(N+1)%2]]"},
              {"resumed late", "5,N,3,1", "[[(N+3)%5,(N+4)%5,(N+5)%5,(N+6)%5,(N+7)%5]]"},
              {"one sample", "1,N,N,2", "[[0],[0]]"},
              {"resumed at epoch one, another seed", "3,N+1,1,1", "[[(N+2)%3,(N+3)%3,(N+4)%3]]"},
      },
  };
  return k_mechanism;
}
