// Overflow windows and stride
// ===========================
//
// The failure. A document longer than the model's window is split into
// overlapping windows (question answering, long-text token classification).
// In the transformers tokenizers and pipelines the `stride` argument is the
// number of tokens consecutive windows share, not the step between their
// starts: windows of max_len tokens start max_len - stride apart, and the
// last one ends at the end of the document. transformers issue 22391 reports
// a user who read `stride` as the step and "spent a while trying to figure
// out why the performance was so abysmal"; the maintainers agreed the name
// was poorly chosen and documented it as the overlap (PR 22684). The broken
// path here steps by `stride`: with 7 tokens, max_len 4 and stride 1 it
// emits seven windows, six of them mostly repeated, where the contract has
// [0, 4] and [3, 7].
//
// Why the unsuccessful fix fails. Stepping by max_len - stride gets the
// overlap right, but `range(0, n_tokens, step)` keeps starting windows until
// the start passes the end, so after the window that already reaches the end
// it emits one or more windows lying wholly inside it ([6, 7] after [3, 7]).
// It is right only when the last full step lands exactly on the end.
// (Constructed: the natural reading of the clarified docs.)
//
// Why the repair holds. It walks windows as the tokenizer does: each window
// is [start, min(start + max_len, n_tokens)], the walk stops at the first
// window that reaches the end, and the next window starts `stride` tokens
// before the previous end. Integer arithmetic only; the C++ refuses stride >=
// max_len, where the walk would not advance (the tokenizers assert
// stride < max_len).
//
// Source: https://github.com/huggingface/transformers/issues/22391
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

constexpr std::size_t k_window_cap = 1000000;

Result<Value> window(std::int64_t start, std::int64_t max_len, std::int64_t n_tokens) {
  FAILMAP_TRY_ASSIGN(auto reach, checked_add(start, max_len));
  return args::int_list_value({start, reach < n_tokens ? reach : n_tokens});
}

// [[start, min(start + max_len, n_tokens)] for start in range(0, n_tokens, step)]
Result<Value> stepped(std::int64_t n_tokens, std::int64_t max_len, std::int64_t step) {
  if (step == 0) return input_error("range() arg 3 must not be zero");
  Value::List out;
  for (std::int64_t start = 0; step > 0 ? start < n_tokens : start > n_tokens;) {
    if (out.size() >= k_window_cap) return input_error("more than 1,000,000 windows are outside this reproducer");
    FAILMAP_TRY_ASSIGN(auto w, window(start, max_len, n_tokens));
    out.push_back(std::move(w));
    auto next = checked_add(start, step);
    if (!next) break;  // range() stops before overflowing int64 here
    start = *next;
  }
  return Value::list(std::move(out));
}

Result<Value> broken(std::int64_t n_tokens, std::int64_t max_len, std::int64_t stride) {
  return stepped(n_tokens, max_len, stride);
}

Result<Value> unsuccessful(std::int64_t n_tokens, std::int64_t max_len, std::int64_t stride) {
  FAILMAP_TRY_ASSIGN(auto step, checked_sub(max_len, stride));
  return stepped(n_tokens, max_len, step);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(std::int64_t n_tokens, std::int64_t max_len, std::int64_t stride) {
  if (stride >= max_len) return input_error("stride must be smaller than max_len (the walk would not advance)");
  Value::List out;
  std::int64_t start = 0;
  while (true) {
    if (out.size() >= k_window_cap) return input_error("more than 1,000,000 windows are outside this reproducer");
    FAILMAP_TRY_ASSIGN(auto reach, checked_add(start, max_len));
    const std::int64_t end = reach < n_tokens ? reach : n_tokens;
    out.push_back(args::int_list_value({start, end}));
    if (end == n_tokens) break;
    FAILMAP_TRY_ASSIGN(start, checked_sub(end, stride));
  }
  return Value::list(std::move(out));
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_overflow_window_stride() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "overflow-window-stride",
      .title = "Overflow windows and stride",
      .source = "https://github.com/huggingface/transformers/issues/22391",
      .evaluation_group = {"overflow-windows"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Overflow windows step by the stride instead of overlapping by it",
              .summary = "Overflow windows step by the stride instead of overlapping by it.",
              .root_cause = "The tokenizer's `stride` is the overlap between consecutive windows, but the windowing "
                            "code uses it as the distance between window starts.",
              .failure = "The broken path starts a window every `stride` tokens, emitting many nearly identical "
                         "windows (and skipping tokens when stride > max_len).",
              .unsuccessful_approach = "Stepping by max_len - stride over range(0, n_tokens) fixes the overlap but "
                                       "keeps emitting windows that lie inside the one that already reached the end.",
              .contract = "Return the windows [start, end] of a document of n_tokens tokens (0 <= stride < max_len): "
                          "end = min(start + max_len, n_tokens), the first start is 0, each next start is the "
                          "previous end - stride, and the last window is the first whose end is n_tokens.",
              .why_it_matters = "Redundant or missing windows change which spans a QA or tagging model sees and "
                                "scores, and multiply the compute spent on every long document.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(n_tokens, max_len, stride):\n"
               "    windows = []\n"
               "    for start in range(0, n_tokens, stride):\n"
               "        windows.append([start, min(start + max_len, n_tokens)])\n"
               "    return windows\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(n_tokens, max_len, stride):\n"
               "    windows = []\n"
               "    for start in range(0, n_tokens, max_len - stride):\n"
               "        windows.append([start, min(start + max_len, n_tokens)])\n"
               "    return windows\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(n_tokens, max_len, stride):\n"
               "    windows = []\n"
               "    start = 0\n"
               "    while True:\n"
               "        end = min(start + max_len, n_tokens)\n"
               "        windows.append([start, end])\n"
               "        if end == n_tokens:\n"
               "            break\n"
               "        start = end - stride\n"
               "    return windows\n"),
          }},
      .fixtures =
          {
              {"two windows past a full step", "7*N,4*N,N", "[[0,4*N],[3*N,7*N]]"},
              {"last step lands on the end", "6*N,4*N,N", "[[0,4*N],[3*N,6*N]]"},
              {"a short window", "6*N,2*N,N", "[[0,2*N],[N,3*N],[2*N,4*N],[3*N,5*N],[4*N,6*N]]"},
              {"a wide overlap", "6*N,4*N,2*N", "[[0,4*N],[2*N,6*N]]"},
              {"exactly one window", "4*N,4*N,N", "[[0,4*N]]"},
              {"shorter than one window", "2*N,4*N,N", "[[0,2*N]]"},
              {"half-window overlap", "5*N,2*N,N", "[[0,2*N],[N,3*N],[2*N,4*N],[3*N,5*N]]"},
          },
  };
  return k_mechanism;
}
