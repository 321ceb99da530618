// Subword label alignment
// =======================
//
// The failure. Token classification (NER, POS) has one label per word, but
// the tokenizer splits words into subword tokens and adds special tokens.
// The labels must be re-aligned to tokens: the first token of each word gets
// the word's label, the other tokens of that word and the special tokens get
// -100 so the loss ignores them. transformers PR 15300 reports that the
// custom-datasets notebook's tokenize_and_align_labels left out the code that
// labels only the first token of a word, so every subword carried the word's
// label: a word split into N pieces is counted N times in the loss and in
// the metric. The broken path here is that alignment,
// `labels[w]` for every token of a word.
//
// Why the unsuccessful fix fails. Labelling a token only when its word id
// differs from the previous token's, without first testing for the special
// tokens' id, sends the special tokens' id (-1 here, None in transformers)
// into labels[w]: Python's labels[-1] silently returns the last word's label,
// so [CLS] and [SEP] are trained as that class. It is right for inputs
// without special tokens. (Constructed: the usual first version of the loop.)
//
// Why the repair holds. Special tokens are -100 before anything else; a word
// token is labelled exactly when its word id differs from the previous
// token's (the previous special token resets the comparison), so each word
// contributes one labelled token. Integer bookkeeping; the C++ indexes the
// labels as Python does, negative indices from the end.
//
// Source: https://github.com/huggingface/transformers/pull/15300
#include "core/args.h"
#include "core/mechanism.h"

namespace failmap {
namespace {

enum class Alignment { EveryToken, FirstTokenNoSpecialCheck, FirstToken };

// labels[w] with Python's indexing (negative from the end, IndexError outside).
Result<std::int64_t> label_of(args::IntListView labels, std::int64_t w) {
  const auto n = static_cast<std::int64_t>(labels.size());
  const std::int64_t i = w < 0 ? w + n : w;
  if (i < 0 || i >= n) return input_error("list index out of range (labels)");
  return labels[static_cast<std::size_t>(i)];
}

Result<Value> aligned(args::IntListView word_ids, args::IntListView labels, Alignment alignment) {
  std::vector<std::int64_t> out;
  out.reserve(word_ids.size());
  bool have_previous = alignment == Alignment::FirstToken;  // None compares unequal to every int
  std::int64_t previous = -1;
  for (std::size_t i = 0; i < word_ids.size(); ++i) {
    const std::int64_t w = word_ids[i];
    if (alignment != Alignment::FirstTokenNoSpecialCheck && w == -1) {
      out.push_back(-100);
    } else if (alignment == Alignment::EveryToken || !have_previous || w != previous) {
      FAILMAP_TRY_ASSIGN(auto label, label_of(labels, w));
      out.push_back(label);
    } else {
      out.push_back(-100);
    }
    previous = w;
    have_previous = true;
  }
  return args::int_list_value(out);
}

Result<Value> broken(args::IntListView word_ids, args::IntListView labels) {
  return aligned(word_ids, labels, Alignment::EveryToken);
}

Result<Value> unsuccessful(args::IntListView word_ids, args::IntListView labels) {
  return aligned(word_ids, labels, Alignment::FirstTokenNoSpecialCheck);
}

#if FAILMAP_REPAIRS
Result<Value> repaired(args::IntListView word_ids, args::IntListView labels) {
  return aligned(word_ids, labels, Alignment::FirstToken);
}
#endif

}  // namespace
}  // namespace failmap

const failmap::Mechanism& failmap_mechanism_subword_label_alignment() {
  using namespace failmap;
  static const Mechanism k_mechanism{
      .id = "subword-label-alignment",
      .title = "Subword label alignment",
      .source = "https://github.com/huggingface/transformers/pull/15300",
      .evaluation_group = {"subword-labels"},
      .parameters = {"N"},
      .default_binding = {"1"},
      .parameter_minimum = {1},
      .parameter_maximum = {1000},
      .prose =
          {
              .case_title = "Every subword of a word carries the word's label",
              .summary = "Every subword of a word carries the word's label.",
              .root_cause = "Word-level labels are copied to every token of the word, so a word split into several "
                            "subwords is trained and scored several times.",
              .failure = "The broken path returns labels[w] for every token with a word id and -100 only for special "
                         "tokens.",
              .unsuccessful_approach = "Labelling only the first token of each word but without testing for the "
                                       "special tokens' id -1 gives them labels[-1], the last word's label.",
              .contract = "word_ids holds each token's word index, -1 for special tokens; return per token: -100 for "
                          "a special token, labels[w] for the first token of a word (word id differs from the "
                          "previous token's), -100 for its other tokens.",
              .why_it_matters = "Long or rare words dominate the loss and the token-level metric, and special tokens "
                                "trained as an entity class corrupt the tagger.",
              .scope = "Inputs are scalar or short-list summaries and do not model autodiff, devices, or an "
                       "optimizer. This reproducer isolates one failure mechanism. Results cover the supplied "
                       "fixtures. Variants within a family share a test contract and should remain grouped when "
                       "constructing evaluation splits. Related mechanisms with a shared evaluation_group must also "
                       "remain together; these controlled models are not independent production incidents.",
          },
      .strategies =
          {{
              {StrategyKind::Broken, broken,
               "def solve(word_ids, labels):\n"
               "    return [-100 if w == -1 else labels[w] for w in word_ids]\n"},
              {StrategyKind::Unsuccessful, unsuccessful,
               "def solve(word_ids, labels):\n"
               "    out = []\n"
               "    previous = None\n"
               "    for w in word_ids:\n"
               "        if w != previous:\n"
               "            out.append(labels[w])\n"
               "        else:\n"
               "            out.append(-100)\n"
               "        previous = w\n"
               "    return out\n"},
              FAILMAP_REPAIRED(repaired,
               "def solve(word_ids, labels):\n"
               "    out = []\n"
               "    previous = -1\n"
               "    for w in word_ids:\n"
               "        if w == -1:\n"
               "            out.append(-100)\n"
               "        elif w != previous:\n"
               "            out.append(labels[w])\n"
               "        else:\n"
               "            out.append(-100)\n"
               "        previous = w\n"
               "    return out\n"),
          }},
      .fixtures =
          {
              {"one word in many pieces", "[-1]+[0]*N+[1,-1],[3,5]", "[-100,3]+[-100]*(N-1)+[5,-100]"},
              {"two split words, no special tokens", "[0]*N+[1]*N,[2,4]", "[2]+[-100]*(N-1)+[4]+[-100]*(N-1)"},
              {"second word split", "[0,1,1,2],[N,2*N,3*N]", "[N,2*N,-100,3*N]"},
              {"special tokens around whole words", "[-1,0,1,-1],[N,N+1]", "[-100,N,N+1,-100]"},
              {"other labels, same tokens", "[-1,0,1,-1],[2*N,1]", "[-100,2*N,1,-100]"},
              {"two special tokens first", "[-1,-1,0,0,0],[N]", "[-100,-100,N,-100,-100]"},
              {"first word split", "[0,0,1,2],[N,2*N,3*N]", "[N,-100,2*N,3*N]"},
          },
  };
  return k_mechanism;
}
