// The source of a candidate given as a model's raw answer (schema/GRADING.md
// "Completions"): a prediction may carry `completion` (Markdown, prose and
// all) instead of `source`, and failmap takes the code from it by one rule:
//
//   the last fenced code block (``` or ~~~, CommonMark fences) whose info
//   string is empty or names Python (python, py, python3; any case) and that
//   defines `solve` at top level (a line starting "def solve(") — else the
//   whole text.
//
// Each results line of such a prediction records which (`extracted`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "encoding/json.h"
#include "io/predictions.h"

namespace failmap {

/// What extract_solution found: the source and where it came from.
struct Extraction {
  std::string source;      ///< the code to grade
  std::size_t block = 0;   ///< 1-based index, among all fenced blocks, of the block taken; 0: the whole text
  std::size_t blocks = 0;  ///< fenced blocks in the completion (of any language)
};

/// The code of `completion` by the rule above. Fences follow CommonMark
/// (https://spec.commonmark.org/0.31.2/#fenced-code-blocks): at most 3
/// spaces of indentation, 3 or more backticks or tildes, closed by a line of
/// at least as many of the same character (or the end of the text); the
/// indentation of the opening fence is removed from the block's lines.
Extraction extract_solution(std::string_view completion);

/// Fills `p.source` and `p.extraction` from `p.completion` when the
/// prediction carries one; does nothing for a prediction with `source`.
void resolve_completion(Prediction& p);

/// The `extracted` member of a results line: {"from": "block", "block": K,
/// "blocks": N} or {"from": "text", "block": null, "blocks": N}.
Json extraction_json(const SourceExtraction& e);

}  // namespace failmap
