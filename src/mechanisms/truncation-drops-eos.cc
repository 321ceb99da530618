// Truncation drops the end token
// ==============================
//
// The failure. A batch converter wraps every sequence as BOS + tokens +
// EOS, pads the batch to its longest row, and only then truncates the
// rectangle to the model's maximum length. A row longer than the limit loses
// its tail and with it the EOS token, so the model sees a sequence that
// never ends, and heads that read the EOS position (or crop BOS and EOS
// before a contact map) read a content token instead.
// facebookresearch/esm issue 157 reports exactly this in extract.py:
// toks[:, :1022] leaves "bos+seq[:1021]" without eos.
//
// Why the unsuccessful fix fails. Writing EOS into the last column of the
// truncated batch restores it for the rows that were cut, but a shorter row
// already ends earlier with EOS followed by padding, and now carries a second
// EOS after its pads: "bos [seq] <eos> pad pad pad eos", as the maintainer
// answered in that thread when rejecting this fix.
//
// Why the repair holds. It truncates the tokens of each sequence to
// max_len - 2 before adding BOS and EOS, then pads to the longest resulting
// row: every row keeps exactly one BOS and one EOS, cut rows end at the limit,
// short rows are untouched. (BOS = 1, EOS = 2, pad = 0.) Python's slicing
// semantics (negative and oversized stops) are reproduced in C++.
//
// Source: https://github.com/facebookresearch/esm/issues/157
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

constexpr std::int64_t k_bos = 1;
constexpr std::int64_t k_eos = 2;
constexpr std::int64_t k_pad = 0;

using Rows = std::vector<std::vector<std::int64_t>>;

// The length of xs[:stop] in Python.
std::size_t sliced_length(std::size_t size, std::int64_t stop) {
  const auto n = static_cast<std::int64_t>(size);
  if (stop < 0) stop = std::max<std::int64_t>(0, n + stop);
  return static_cast<std::size_t>(std::min(stop, n));
}

// max(len(r) for r in rows): ValueError on an empty batch.
Result<std::size_t> widest(const Rows& rows) {
  if (rows.empty()) return input_error("max() arg is an empty sequence");
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  return width;
}

Rows padded(Rows rows, std::size_t width) {
  for (auto& r : rows) r.resize(std::max(width, r.size()), k_pad);
  return rows;
}

Value rows_value(const Rows& rows) {
  Value::List out;
  for (const auto& r : rows) out.push_back(args::int_list_value(r));
  return Value::list(std::move(out));
}

// [row[:max_len] for row in batch_rows(batch)]
Result<Rows> truncated_rectangle(const Rows& batch, std::int64_t max_len) {
  Rows rows;
  for (const auto& s : batch) {
    std::vector<std::int64_t> row{k_bos};
    row.insert(row.end(), s.begin(), s.end());
    row.push_back(k_eos);
    rows.push_back(std::move(row));
  }
  FAILMAP_TRY_ASSIGN(auto width, widest(rows));
  rows = padded(std::move(rows), width);
  for (auto& r : rows) r.resize(sliced_length(r.size(), max_len));
  return rows;
}

Result<Value> broken(const Rows& batch, std::int64_t max_len) {
  FAILMAP_TRY_ASSIGN(auto rows, truncated_rectangle(batch, max_len));
  return rows_value(rows);
}

Result<Value> unsuccessful(const Rows& batch, std::int64_t max_len) {
  FAILMAP_TRY_ASSIGN(auto rows, truncated_rectangle(batch, max_len));
  for (auto& r : rows) {
    if (r.empty()) return input_error("list assignment index out of range");
    r.back() = k_eos;
  }
  return rows_value(rows);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& batch, std::int64_t max_len) {
  FAILMAP_TRY_ASSIGN(auto keep, checked_sub(max_len, 2));
  Rows rows;
  for (const auto& s : batch) {
    std::vector<std::int64_t> row{k_bos};
    row.insert(row.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(sliced_length(s.size(), keep)));
    row.push_back(k_eos);
    rows.push_back(std::move(row));
  }
  FAILMAP_TRY_ASSIGN(auto width, widest(rows));
  return rows_value(padded(std::move(rows), width));
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_truncation_drops_eos() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "truncation-drops-eos",
      .title = "Truncation drops the end token",
      .source = "https://github.com/facebookresearch/esm/issues/157",
      .evaluation_group = {"end-token-supervision"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Truncating the padded batch cuts off the end token",
              .summary = "Truncating the padded batch cuts off the end token.",
              .root_cause = "Special tokens are added and the batch padded before truncation, so truncation cuts "
                            "the EOS token of every over-long row.",
              .failure = "The broken path returns over-long rows as BOS plus the first max_len - 1 tokens, with "
                         "no EOS.",
              .unsuccessful_approach = "Writing EOS into the last column restores it for cut rows but appends a "
                                       "second EOS after the padding of shorter rows.",
              .contract = "Return the batch as rows of BOS (1), the first max_len - 2 tokens, EOS (2), each padded "
                          "with 0 to the longest such row.",
              .why_it_matters = "Models trained or evaluated on sequences without their end marker learn not to "
                                "stop, and heads that read special positions read the wrong token.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def batch_rows(batch):\n"
               "    rows = [[1] + s + [2] for s in batch]\n"
               "    width = max(len(r) for r in rows)\n"
               "    return [r + [0] * (width - len(r)) for r in rows]\n"
               "def solve(batch, max_len):\n"
               "    return [row[:max_len] for row in batch_rows(batch)]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def batch_rows(batch):\n"
               "    rows = [[1] + s + [2] for s in batch]\n"
               "    width = max(len(r) for r in rows)\n"
               "    return [r + [0] * (width - len(r)) for r in rows]\n"
               "def solve(batch, max_len):\n"
               "    rows = [row[:max_len] for row in batch_rows(batch)]\n"
               "    for row in rows:\n"
               "        row[-1] = 2\n"
               "    return rows\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(batch, max_len):\n"
               "    rows = [[1] + s[:max_len - 2] + [2] for s in batch]\n"
               "    width = max(len(r) for r in rows)\n"
               "    return [r + [0] * (width - len(r)) for r in rows]\n"),
          }},
      .fixtures =
          {
              {"one long sequence", "[[5]*(N+3)],N+2", "[[1]+[5]*N+[2]]"},
              {"long and short", "[[5]*(N+3),[6]],N+2", "[[1]+[5]*N+[2],[1,6,2]+[0]*(N-1)]"},
              {"everything fits", "[[5,6],[7]*(N+2)],N+4", "[[1,5,6,2]+[0]*N,[1]+[7]*(N+2)+[2]]"},
              {"exact fit", "[[5]*N],N+2", "[[1]+[5]*N+[2]]"},
              {"two long sequences", "[[5]*(N+5),[6]*(N+4)],N+2", "[[1]+[5]*N+[2],[1]+[6]*N+[2]]"},
              {"room for one token", "[[5,6,7]],3", "[[1,5,2]]"},
              {"short rows under the limit", "[[5],[6]*(N+1)],N+5", "[[1,5,2]+[0]*N,[1]+[6]*(N+1)+[2]]"},
          },
  };
  return k_mechanism;
}
