// Accuracy over ignored positions
// ===============================
//
// The failure. A token-level accuracy for tagging or language modelling is
// computed over the whole padded label tensor. The loss ignores positions
// labelled -100 (padding, and tokens that are not supervised: [CLS], [SEP],
// prompt tokens, later sub-words), but the metric compares the prediction
// with the label at every position, so each ignored position counts as a
// miss (a token id never equals -100) and the accuracy moves with the amount
// of padding. keras-team/keras issue 4752 reports the same split: "The
// padded values are correctly masked when computing the loss function, but
// when the metrics are computed in the evaluation the padded values are not
// excluded anymore".
//
// Why the unsuccessful fix fails. Masking the metric with the attention
// mask removes padding, but the attention mask is about what the model may
// attend to, not what is supervised: special and prompt tokens are attended
// (mask 1) while their labels are -100, so they are still scored as misses.
// modelscope/ms-swift pull request 10049
// (https://github.com/modelscope/ms-swift/pull/10049) fixed this shape in a
// packed-sequence accuracy that never applied the labels != -100 mask. Right
// only when nothing but padding carries the ignore label.
//
// Why the repair holds. It scores exactly the positions the loss trains on,
// labels != -100, whatever the attention mask says: hits over supervised
// positions, int / int true division (args::true_divide). zip() truncates to
// the shortest row in Python and in the C++.
//
// Source: https://github.com/keras-team/keras/issues/4752
#include <algorithm>

#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

enum class Scored { Every, Attended, Supervised };

Result<Value> accuracy(const Rows& preds, const Rows& labels, const Rows& mask, Scored scored) {
  std::int64_t hits = 0;
  std::int64_t seen = 0;
  const std::size_t rows = std::min({preds.size(), labels.size(), mask.size()});
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t cols = std::min({preds[r].size(), labels[r].size(), mask[r].size()});
    for (std::size_t c = 0; c < cols; ++c) {
      if (scored == Scored::Attended && mask[r][c] == 0) continue;
      if (scored == Scored::Supervised && labels[r][c] == -100) continue;
      ++seen;
      if (preds[r][c] == labels[r][c]) ++hits;
    }
  }
  FAILMAP_TRY_ASSIGN(auto out, args::true_divide(hits, seen));
  return Value::floating(out);
}

Result<Value> broken(const Rows& preds, const Rows& labels, const Rows& mask) {
  return accuracy(preds, labels, mask, Scored::Every);
}
Result<Value> unsuccessful(const Rows& preds, const Rows& labels, const Rows& mask) {
  return accuracy(preds, labels, mask, Scored::Attended);
}
#if FAILMAP_REPAIRS
Result<Value> repaired(const Rows& preds, const Rows& labels, const Rows& mask) {
  return accuracy(preds, labels, mask, Scored::Supervised);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_accuracy_ignored_positions() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "accuracy-ignored-positions",
      .title = "Accuracy over ignored positions",
      .source = "https://github.com/keras-team/keras/issues/4752",
      .evaluation_group = {"supervised-token-mask"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Token accuracy counts positions the loss ignores",
              .summary = "Token accuracy counts positions the loss ignores.",
              .root_cause = "The metric compares predictions and labels at every position, including those "
                            "labelled -100 that the loss skips.",
              .failure = "The broken path scores padding and unsupervised tokens as misses, so the accuracy "
                         "falls with the amount of padding.",
              .unsuccessful_approach = "Masking with the attention mask drops padding but still scores attended "
                                       "tokens whose label is -100, such as special and prompt tokens.",
              .contract = "Return the accuracy over the positions whose label is not -100: hits there divided by "
                          "their number.",
              .why_it_matters = "A metric that disagrees with the loss about which tokens count makes accuracy "
                                "depend on padding and prompt length rather than on the model.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(preds, labels, mask):\n"
               "    hits = 0\n"
               "    seen = 0\n"
               "    for p_row, l_row, m_row in zip(preds, labels, mask):\n"
               "        for p, l, m in zip(p_row, l_row, m_row):\n"
               "            seen += 1\n"
               "            if p == l:\n"
               "                hits += 1\n"
               "    return hits / seen\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(preds, labels, mask):\n"
               "    hits = 0\n"
               "    seen = 0\n"
               "    for p_row, l_row, m_row in zip(preds, labels, mask):\n"
               "        for p, l, m in zip(p_row, l_row, m_row):\n"
               "            if m:\n"
               "                seen += 1\n"
               "                if p == l:\n"
               "                    hits += 1\n"
               "    return hits / seen\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(preds, labels, mask):\n"
               "    hits = 0\n"
               "    seen = 0\n"
               "    for p_row, l_row, m_row in zip(preds, labels, mask):\n"
               "        for p, l, m in zip(p_row, l_row, m_row):\n"
               "            if l != -100:\n"
               "                seen += 1\n"
               "                if p == l:\n"
               "                    hits += 1\n"
               "    return hits / seen\n"),
          }},
      .fixtures =
          {
              {"padding only", "[[5]*N+[6]+[0]*N],[[5]*N+[7]+[-100]*N],[[1]*(N+1)+[0]*N]", "N/(N+1)"},
              {"special tokens", "[[1]+[5]*N+[6]+[2]],[[-100]+[5]*N+[8]+[-100]],[[1]*(N+3)]", "N/(N+1)"},
              {"prompt and padding", "[[7,7]+[5]*(N+1)+[6]*N+[0]],[[-100,-100]+[5]*(N+1)+[9]*N+[-100]],[[1]*(2*N+3)+[0]]",
               "(N+1)/(2*N+1)"},
              {"nothing ignored", "[[5,6]*N],[[5,5]*N],[[1,1]*N]", "0.5"},
              {"two rows", "[[5]*N,[6,0]],[[5]*N,[7,-100]],[[1]*N,[1,0]]", "N/(N+1)"},
              {"all wrong", "[[1]*N],[[2]*N],[[1]*N]", "0.0"},
              {"a row of padding", "[[5,0,0],[0]*N],[[5,-100,-100],[-100]*N],[[1,0,0],[0]*N]", "1.0"},
      },
  };
  return k_mechanism;
}
