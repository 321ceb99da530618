// Iterable dataset sharding
// =========================
//
// The failure. A streaming (iterable-style) dataset has no indices for a
// sampler to split: every DataLoader worker process gets a copy of the
// dataset object and iterates it from the start, and under DDP every rank
// does the same. Unless the dataset itself shards, each example is read once
// per worker per rank. huggingface/datasets issue 3423 reports streaming data
// "repeated num_works times" with num_workers > 1, and PyTorch's
// documentation of IterableDataset warns that naive multi-process loading
// duplicates data.
//
// Why the unsuccessful fix fails. The documented per-worker recipe shards by
// torch.utils.data.get_worker_info(): worker w of W keeps items w, w + W,
// ... That removes the duplication between the workers of one process, but
// the worker ids are the same on every rank, so R ranks still read every item
// R times. It is right on a single rank only. (Constructed: the thread is
// about workers; the rank half is the step the per-worker recipe leaves out.)
//
// Why the repair holds. The shard index is global, rank * W + worker, and the
// stride is the number of readers in the whole job, R * W, so the readers'
// index sets are disjoint and cover range(n): each item is yielded exactly
// once for any number of ranks and workers, including more readers than
// items. The mechanism returns, for each item, the readers that yield it
// (not only how many: a count of one per item would not depend on the
// sharding at all, and a fix that modelled no readers could return it).
// Integer arithmetic only, checked in C++; a zero stride is Python's
// ValueError.
//
// Source: https://github.com/huggingface/datasets/issues/3423
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

struct Input {
  std::int64_t n;
  std::int64_t world_size;
  std::int64_t num_workers;
};

enum class Sharding { None, ByWorker, Global };

// readers[item].append(reader) for item in range(start, n, step), for each
// reader = rank * num_workers + worker in ascending order.
Result<Value> item_readers(const Input& in, Sharding sharding) {
  std::vector<Value::List> readers(static_cast<std::size_t>(in.n > 0 ? in.n : 0));
  for (std::int64_t rank = 0; rank < in.world_size; ++rank) {
    for (std::int64_t worker = 0; worker < in.num_workers; ++worker) {
      FAILMAP_TRY_ASSIGN(auto base, checked_mul(rank, in.num_workers));
      FAILMAP_TRY_ASSIGN(auto reader, checked_add(base, worker));
      std::int64_t start = 0;
      std::int64_t step = 1;
      if (sharding == Sharding::ByWorker) {
        start = worker;
        step = in.num_workers;
      } else if (sharding == Sharding::Global) {
        FAILMAP_TRY_ASSIGN(auto readers_in_job, checked_mul(in.world_size, in.num_workers));
        start = reader;
        step = readers_in_job;
      }
      // start >= 0 and step >= 1 here: the loops run only for positive sizes.
      for (std::int64_t item = start; item < in.n;) {
        readers[static_cast<std::size_t>(item)].push_back(Value::integer(reader));
        if (in.n - item <= step) break;
        item += step;
      }
    }
  }
  Value::List out;
  out.reserve(readers.size());
  for (Value::List& r : readers) out.push_back(Value::list(std::move(r)));
  return Value::list(std::move(out));
}

Result<Value> broken(std::int64_t n, std::int64_t world_size, std::int64_t num_workers) {
  return item_readers({n, world_size, num_workers}, Sharding::None);
}

Result<Value> unsuccessful(std::int64_t n, std::int64_t world_size, std::int64_t num_workers) {
  return item_readers({n, world_size, num_workers}, Sharding::ByWorker);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t n, std::int64_t world_size, std::int64_t num_workers) {
  return item_readers({n, world_size, num_workers}, Sharding::Global);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_iterable_shard_duplication() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "iterable-shard-duplication",
      .title = "Iterable dataset sharding",
      .source = "https://github.com/huggingface/datasets/issues/3423",
      .evaluation_group = {"stream-sharding"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Every worker and rank reads the whole stream",
              .summary = "Every worker and rank reads the whole stream.",
              .root_cause = "An iterable dataset is copied into every DataLoader worker and every rank, and each "
                            "copy iterates the stream from the start.",
              .failure = "The broken path yields every item once per worker per rank, so an epoch repeats the "
                         "data world_size * num_workers times.",
              .unsuccessful_approach = "Sharding by worker id alone removes the duplicates within one process, "
                                       "but every rank has the same worker ids and still reads the same items.",
              .contract = "Return, for each item of range(n), the list of readers that yield it, reader "
                          "rank * num_workers + worker (ranks and workers counted from 0) keeping the items congruent "
                          "to its index modulo world_size * num_workers: item i comes from reader i % (world_size * "
                          "num_workers) alone.",
              .why_it_matters = "Duplicated streaming data silently multiplies the epoch, overweights every "
                                "example equally and makes step counts and learning-rate schedules wrong.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(n, world_size, num_workers):\n"
               "    readers = [[] for _ in range(n)]\n"
               "    for rank in range(world_size):\n"
               "        for worker in range(num_workers):\n"
               "            for item in range(n):\n"
               "                readers[item].append(rank * num_workers + worker)\n"
               "    return readers\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(n, world_size, num_workers):\n"
               "    readers = [[] for _ in range(n)]\n"
               "    for rank in range(world_size):\n"
               "        for worker in range(num_workers):\n"
               "            for item in range(worker, n, num_workers):\n"
               "                readers[item].append(rank * num_workers + worker)\n"
               "    return readers\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(n, world_size, num_workers):\n"
               "    readers = [[] for _ in range(n)]\n"
               "    for rank in range(world_size):\n"
               "        for worker in range(num_workers):\n"
               "            shard = rank * num_workers + worker\n"
               "            for item in range(shard, n, world_size * num_workers):\n"
               "                readers[item].append(shard)\n"
               "    return readers\n"),
          }},
      .fixtures =
          {
              {"two ranks, two workers", "4*N+2,2,2", "[[0],[1],[2],[3]]*N+[[0],[1]]"},
              {"one rank, several workers", "3*N+1,1,3", "[[0],[1],[2]]*N+[[0]]"},
              {"single process", "N,1,1", "[[0]]*N"},
              {"ranks without workers", "3*N+2,3,1", "[[0],[1],[2]]*N+[[0],[1]]"},
              {"more readers than items", "2,N+2,2", "[[0],[1]]"},
              {"workers beyond the items", "1,1,N+1", "[[0]]"},
              {"empty stream", "0,2,N", "[]"},
      },
  };
  return k_mechanism;
}
