// Packed position ids
// ===================
//
// The failure. Sequence packing concatenates several training samples into
// one row so that no slot is wasted on padding. Position ids must restart at
// 0 at the first token of every packed sample, or each sample after the first
// is embedded as if it continued the previous one (and flash attention's
// varlen path, which finds sample boundaries where the position is 0, lets it
// attend across them). nanoVLM's ConstantLengthDataset gave the packed row
// contiguous positions 0..L-1; its PR 204 reports that "sample B starts from
// a non-zero position inside the packed sequence" and resets positions per
// sample. The broken path here is `list(range(len(row)))`.
//
// Why the unsuccessful fix fails. Restarting the count at each sample but
// letting the padding slots at the end of the row continue the last sample's
// count makes the padding look like a continuation of that sample, so the
// boundary finder merges it into the sample. The convention transformers
// uses (PR 32875: two samples of 3 and two padding slots give
// [0, 1, 2, 0, 1, 2, 0, 1]) treats the padding tail as a segment of its own,
// starting at 0. (Constructed: the common first version of the reset.)
//
// Why the repair holds. Every segment of the row, each sample and then the
// padding tail, numbers its tokens 0, 1, ... from its own start, so a 0
// marks exactly the segment starts. Integer bookkeeping only.
//
// Source: https://github.com/huggingface/nanoVLM/pull/204
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Positions { Contiguous, PaddingContinues, PerSegment };

Result<Value> positions(args::IntListView lengths, std::int64_t pad, Positions mode) {
  // Contiguous: range(sum(lengths) + pad); otherwise one range per segment (a negative length is empty).
  std::int64_t sum = pad, size = pad < 0 ? 0 : pad;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    FAILMAP_TRY_ASSIGN(sum, checked_add(sum, lengths[i]));
    if (lengths[i] > 0) size = lengths[i] > 1000000 || size > 1000000 ? 1000001 : size + lengths[i];
  }
  if (mode == Positions::Contiguous) size = sum < 0 ? 0 : sum;
  if (size > 1000000) return input_error("rows above 1,000,000 tokens are outside this reproducer");
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(size));
  if (mode == Positions::Contiguous) {
    for (std::int64_t i = 0; i < sum; ++i) out.push_back(i);
    return args::int_list_value(out);
  }
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    for (std::int64_t i = 0; i < lengths[d]; ++i) out.push_back(i);
  }
  // lengths[-1] if lengths else 0
  const std::int64_t start =
      mode == Positions::PaddingContinues && lengths.size() > 0 ? lengths[lengths.size() - 1] : 0;
  for (std::int64_t i = 0; i < pad; ++i) {
    FAILMAP_TRY_ASSIGN(auto p, checked_add(start, i));
    out.push_back(p);
  }
  return args::int_list_value(out);
}

Result<Value> broken(args::IntListView lengths, std::int64_t pad) {
  return positions(lengths, pad, Positions::Contiguous);
}

Result<Value> unsuccessful(args::IntListView lengths, std::int64_t pad) {
  return positions(lengths, pad, Positions::PaddingContinues);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView lengths, std::int64_t pad) {
  return positions(lengths, pad, Positions::PerSegment);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_packed_position_ids() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "packed-position-ids",
      .title = "Packed position ids",
      .source = "https://github.com/huggingface/nanoVLM/pull/204",
      .evaluation_group = {"sequence-packing"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Packed samples continue the previous sample's position ids",
              .summary = "Packed samples continue the previous sample's position ids.",
              .root_cause = "The packed row is given contiguous positions 0..L-1, so every sample after the first "
                            "starts at a non-zero position and sample boundaries cannot be recovered from the ids.",
              .failure = "The broken path returns list(range(sum(lengths) + pad)).",
              .unsuccessful_approach = "Restarting at each sample but letting the padding tail continue the last "
                                       "sample's count merges the padding into that sample.",
              .contract = "Return the position ids of a row packing samples of the given lengths followed by `pad` "
                          "padding slots: each sample, and then the padding tail, counts 0, 1, ... from its start.",
              .why_it_matters = "Wrong positions change every packed sample's embeddings and let attention cross "
                                "sample boundaries, so packed training learns from contaminated context.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(lengths, pad):\n"
               "    return list(range(sum(lengths) + pad))\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(lengths, pad):\n"
               "    positions = []\n"
               "    for length in lengths:\n"
               "        for i in range(length):\n"
               "            positions.append(i)\n"
               "    start = lengths[-1] if lengths else 0\n"
               "    for i in range(pad):\n"
               "        positions.append(start + i)\n"
               "    return positions\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(lengths, pad):\n"
               "    positions = []\n"
               "    for length in lengths:\n"
               "        for i in range(length):\n"
               "            positions.append(i)\n"
               "    for i in range(pad):\n"
               "        positions.append(i)\n"
               "    return positions\n"),
          }},
      .fixtures =
          {
              {"equal samples", "[3]*N,0", "[0,1,2]*N"},
              {"padding tail", "[2]*N,3", "[0,1]*N+[0,1,2]"},
              {"one-token samples", "[1]*N,2", "[0]*N+[0,1]"},
              {"alternating lengths", "[2,1]*N,0", "[0,1,0]*N"},
              {"long sample then padding", "[4,2],1", "[0,1,2,3,0,1,0]"},
              {"short then long", "[1,3]*N,0", "[0,0,1,2]*N"},
              {"equal samples and one pad", "[3]*N,1", "[0,1,2]*N+[0]"},
          },
  };
  return k_mechanism;
}
