// Distributed sampler padding
// ===========================
//
// The failure. Evaluation runs on W ranks. A distributed sampler gives every
// rank the same number of samples, so when the dataset size is not a
// multiple of W it pads the index list by repeating indices from its start
// (PyTorch's DistributedSampler does exactly this when drop_last is false).
// Gathering the per-sample results from every rank and averaging them then
// counts the first few samples twice: correctness flags
// [1, 1, 0, 0, 0, 0, 0, 0, 0, 0] on 3 ranks become a stream of 12 with two
// extra hits, and the reported accuracy is 4 / 12 = 0.3333333333333333 where
// the dataset's accuracy is 2 / 10 = 0.2. The error depends on the world
// size, so the same checkpoint scores differently on 2 and on 3 GPUs.
//
// Why the unsuccessful fix fails. Dividing by the true dataset size instead
// of the stream length fixes the denominator but keeps the duplicated hits in
// the numerator: 4 / 10 = 0.4, further off than before. It is correct only
// when the padded samples happen to be misses, or no padding was needed.
//
// Why the repair holds. The gathered stream is truncated to the dataset
// length before anything is counted, which removes exactly the padded tail
// (the sampler appends the padding after the real indices), so each real
// sample contributes once and the denominator is the real sample count.
// int / int is Python true division, correctly rounded, and so is the C++
// (args::true_divide) for counts below 2**53.
//
// PyTorch issue 25162 reports the padded duplicates skewing distributed validation accuracy.
// Source: https://github.com/pytorch/pytorch/issues/25162
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

// padded_stream(): the flags in the order the gathered results arrive.
Result<std::vector<std::int64_t>> padded_stream(const std::vector<std::int64_t>& flags, std::int64_t world_size) {
  FAILMAP_TRY_ASSIGN(auto a, checked_add(args::length(flags), world_size));
  FAILMAP_TRY_ASSIGN(auto b, checked_sub(a, 1));
  FAILMAP_TRY_ASSIGN(auto groups, checked_floordiv(b, world_size));
  FAILMAP_TRY_ASSIGN(auto total_size, checked_mul(groups, world_size));
  std::vector<std::int64_t> stream = flags;
  while (args::length(stream) < total_size) {
    // flags[len(stream) % len(flags)]; flags is non-empty here, as
    // total_size > len(stream) >= 0 needs len(flags) >= 1 for world_size >= 1.
    FAILMAP_TRY_ASSIGN(auto i, checked_mod(args::length(stream), args::length(flags)));
    stream.push_back(flags[static_cast<std::size_t>(i)]);
  }
  return stream;
}

Result<double> accuracy(const std::vector<std::int64_t>& hits_from, std::int64_t denominator) {
  FAILMAP_TRY_ASSIGN(auto hits, args::checked_sum(hits_from));
  return args::true_divide(hits, denominator);
}

Result<Value> broken(const std::vector<std::int64_t>& flags, std::int64_t world_size) {
  FAILMAP_TRY_ASSIGN(auto stream, padded_stream(flags, world_size));
  FAILMAP_TRY_ASSIGN(auto r, accuracy(stream, args::length(stream)));
  return Value::floating(r);
}

Result<Value> unsuccessful(const std::vector<std::int64_t>& flags, std::int64_t world_size) {
  FAILMAP_TRY_ASSIGN(auto stream, padded_stream(flags, world_size));
  FAILMAP_TRY_ASSIGN(auto r, accuracy(stream, args::length(flags)));
  return Value::floating(r);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const std::vector<std::int64_t>& flags, std::int64_t world_size) {
  FAILMAP_TRY_ASSIGN(auto stream, padded_stream(flags, world_size));
  stream.resize(flags.size());  // [:len(flags)]; the stream is never shorter
  FAILMAP_TRY_ASSIGN(auto r, accuracy(stream, args::length(stream)));
  return Value::floating(r);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_distributed_sampler_padding() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "distributed-sampler-padding",
      .title = "Distributed sampler padding",
      .source = "https://github.com/pytorch/pytorch/issues/25162",
      .evaluation_group = {"distributed-evaluation"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {},
      .prose =
          {
              .case_title = "Sampler padding duplicates samples in distributed accuracy",
              .summary = "Sampler padding duplicates samples in distributed accuracy.",
              .root_cause = "The distributed sampler pads the index list to a multiple of the world size by "
                            "repeating its first indices, and the gathered results keep the duplicates.",
              .failure = "The broken path averages the padded stream, so the first samples are counted twice and "
                         "the score depends on the number of ranks.",
              .unsuccessful_approach = "Dividing the padded hit count by the true sample count fixes the "
                                       "denominator but keeps the duplicated hits in the numerator.",
              .contract = "Return accuracy over the real samples only: truncate the gathered stream to the dataset "
                          "length, then divide its hits by that length.",
              .why_it_matters = "An evaluation metric must not change with the number of devices it runs on, or "
                                "model comparisons across clusters are meaningless.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def padded_stream(flags, world_size):\n"
               "    total_size = (len(flags) + world_size - 1) // world_size * world_size\n"
               "    stream = list(flags)\n"
               "    while len(stream) < total_size:\n"
               "        stream.append(flags[len(stream) % len(flags)])\n"
               "    return stream\n"
               "def solve(flags, world_size):\n"
               "    stream = padded_stream(flags, world_size)\n"
               "    return sum(stream) / len(stream)\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def padded_stream(flags, world_size):\n"
               "    total_size = (len(flags) + world_size - 1) // world_size * world_size\n"
               "    stream = list(flags)\n"
               "    while len(stream) < total_size:\n"
               "        stream.append(flags[len(stream) % len(flags)])\n"
               "    return stream\n"
               "def solve(flags, world_size):\n"
               "    stream = padded_stream(flags, world_size)\n"
               "    return sum(stream) / len(flags)\n"},
              FAILMAP_REPAIRED(repaired,
               "def padded_stream(flags, world_size):\n"
               "    total_size = (len(flags) + world_size - 1) // world_size * world_size\n"
               "    stream = list(flags)\n"
               "    while len(stream) < total_size:\n"
               "        stream.append(flags[len(stream) % len(flags)])\n"
               "    return stream\n"
               "def solve(flags, world_size):\n"
               "    stream = padded_stream(flags, world_size)[:len(flags)]\n"
               "    return sum(stream) / len(stream)\n"),
          }},
      .fixtures =
          {
              {"padding repeats hits", "[1,1]+[0]*(N//2),N//2+3", "2/(N//2+2)"},
              {"more ranks than samples", "[1,0],2*N+1", "0.5"},
              {"padding repeats a miss", "[0]+[1]*(N//2+1),N//2+3", "(N//2+1)/(N//2+2)"},
              {"divisible by world size", "[0]*(N-1)+[1],N", "1/N"},
              {"single rank", "[1,0,1]+[0]*(N//2),1", "2/(N//2+3)"},
              {"uniform hits", "[1]*N,N+1", "1.0"},
              {"uniform misses", "[0]*N,N+1", "0.0"},
      },
  };
  return k_mechanism;
}
