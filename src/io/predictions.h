// PREDICTIONS.jsonl: a model's candidate fixes, one JSON object per line
// (schema/GRADING.md "predictions.jsonl"):
//
//   {"case": "FA-98921", "model": "NAME", "sample": 0, "source": "def solve(batch_sizes, target):\n    ..."}
//
// `case` names a case of the archive (a task's `task_id`), `model` the model
// (1-200 bytes, no control characters), `sample` (default 0, 0 <= sample <
// 2^31) numbers a model's candidates for one case, `source` is Python
// defining `solve`, or instead `completion` is a model's raw answer (Markdown,
// prose and all) that grade/completion.h takes the code from; exactly one of
// the two. A member `meta` (any JSON value) is allowed and ignored;
// any other member is refused, so a misspelt one is not silently dropped.
// Lines are read as every JSON Lines input of failmap is (io/bundle.h
// read_jsonl: one UTF-8 BOM at the start skipped, CRLF accepted, limits of
// encoding/limits.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/sha256.h"

namespace failmap {

/// Where the source of a prediction given as `completion` came from
/// (grade/completion.h extract_solution).
struct SourceExtraction {
  std::size_t block = 0;   ///< 1-based index of the fenced block taken; 0: the whole text
  std::size_t blocks = 0;  ///< fenced blocks in the completion
};

/// One prediction.
struct Prediction {
  std::uint64_t line = 0;  ///< 1-based line in its file
  std::string case_id;
  std::string model;
  std::int64_t sample = 0;
  std::string source;                     ///< the candidate's source (from `completion`: once resolve_completion ran)
  std::optional<std::string> completion;  ///< the raw answer, when the line gave `completion`
  std::optional<SourceExtraction> extraction;  ///< set by resolve_completion
};

/// Reads one parsed line into `*out`; false with one problem per bad field
/// appended to `problems` (file, line, field, what was expected and found),
/// in the order of the fields on the line.
bool prediction_from_json(const Json& j, const std::string& file, std::uint64_t line, Prediction* out,
                          std::vector<InputProblem>* problems);

/// Streams the predictions of `file` to `fn`, in file order; every problem
/// of every line is appended to `problems` (a line with problems is not
/// passed to `fn`). Also refuses a (case, model, sample) given twice, naming
/// both lines (with `check_duplicates`: it keeps 16 bytes and a line number
/// per prediction; a second reading of a file already checked, whose bytes
/// the caller verifies otherwise, can do without). With `digest`, every byte
/// of the file is fed to it as it is read (read_jsonl): afterwards it holds
/// the SHA-256 of exactly the bytes the predictions came from. False when
/// there was any problem.
bool read_predictions(const std::filesystem::path& file, const std::function<void(Prediction&&)>& fn,
                      std::vector<InputProblem>* problems, bool check_duplicates = true, Sha256* digest = nullptr);

}  // namespace failmap
