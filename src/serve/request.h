// The body of `POST /v1/grade` (schema/SERVE.md "POST /v1/grade"), read from
// untrusted bytes: a batch of predictions in the predictions format
// (schema/GRADING.md "predictions.jsonl"), either as a JSON array of
// prediction objects (Content-Type application/json) or as JSON Lines, one
// prediction a line (application/jsonl or application/x-ndjson). Each
// prediction is checked as `failmap grade` checks a line (prediction_from_json),
// a (case, model, sample) given twice is refused, and a `completion` is
// resolved to its source (grade/completion.h). Whether each case is in the
// archive is for the caller.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "io/predictions.h"

namespace failmap::serve {

/// The two spellings of a batch.
enum class BatchFormat {
  JsonArray,  ///< [ {prediction}, … ]: answered with a JSON array of results
  JsonLines,  ///< one prediction a line: answered with one results line a line
};

/// The format a Content-Type names (its media type, parameters ignored, any
/// case): application/json → JsonArray; application/jsonl,
/// application/x-ndjson, application/json-lines → JsonLines; nullopt for
/// any other (the server answers 415).
std::optional<BatchFormat> batch_format_of(std::string_view content_type);

/// Why a body was refused: the HTTP status (400 not JSON / not the format,
/// 413 more predictions than allowed, 422 well-formed but invalid
/// predictions) and one message, with one line per problem ("LINE: field
/// 'F': what", LINE the prediction's 1-based position in the batch).
struct RequestProblem {
  int status = 400;
  std::string message;
  std::vector<std::string> problems;
};

/// A batch read, or why not.
struct GradeRequest {
  std::vector<Prediction> predictions;  ///< in batch order, `line` = 1-based position (JSON Lines: line)
  std::optional<RequestProblem> problem;
};

/// Reads a batch of at most `max_predictions` predictions from `body`. The
/// count is checked before any element is parsed (a body of 100,000
/// predictions costs a scan, not 100,000 parses); each element is parsed by
/// parse_json_strict (nesting at most k_max_json_depth, strict UTF-8, no
/// duplicate keys). An empty batch is a 422.
GradeRequest read_grade_request(std::string_view body, BatchFormat format, std::size_t max_predictions);

}  // namespace failmap::serve
