// The body of `POST /v1/grade` (schema/SERVE.md "POST /v1/grade"), read from
// untrusted bytes: a batch of predictions in the predictions format
// (schema/GRADING.md "predictions.jsonl"), either as a JSON array of
// prediction objects (Content-Type application/json) or as JSON Lines, one
// prediction a line (application/jsonl or application/x-ndjson). Each
// prediction is checked as `failmap grade` checks a line (prediction_from_json),
// a (case, model, sample) given twice is refused, and a `completion` is
// resolved to its source (grade/completion.h). Whether each case is in the
// archive is for the caller. Two fields of the request head are read here
// too: the Content-Length fields that frame the body, and the bearer token
// of Authorization.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

/// Why the Content-Length fields of a request head (`values`, one string
/// per field, in the order received) do not frame a body, or nullopt when
/// they do: no field, or every field a list (RFC 9110 §5.3) of one decimal
/// length (RFC 9110 §8.6: 1*DIGIT), the same in every element and field (a
/// repeated "42, 42" is one length; leading zeros do not make another). A
/// sign, a blank, a non-digit or two different lengths make the framing
/// invalid: the server answers 400 and closes the connection (RFC 9112 §6.3:
/// a server that receives an invalid Content-Length must treat the message
/// as unrecoverable). The message names the header and quotes at most 64
/// bytes of each offending value.
std::optional<std::string> content_length_problem(const std::vector<std::string>& values);

/// Why a request head's framing refuses its body before any of it is read,
/// or nullopt: the Content-Length fields `content_lengths` as
/// content_length_problem() judges them (400); a Transfer-Encoding
/// (`transfer_encodings`, one string per field) beside a Content-Length
/// (400: RFC 9112 §6.1 lets a server reject it, and such a message is how
/// requests are smuggled past a proxy that frames it the other way); a
/// Transfer-Encoding other than one `chunked` (501, RFC 9112 §6.1: a coding
/// the server does not understand); a Content-Length above `max_body_bytes`
/// (413, so that a body the server would not keep is neither waited for nor
/// read). After any of them the server closes the connection. `problems` is
/// empty.
std::optional<RequestProblem> framing_problem(const std::vector<std::string>& content_lengths,
                                              const std::vector<std::string>& transfer_encodings,
                                              std::uint64_t max_body_bytes);

/// The content codings a request body may carry (Content-Encoding, RFC 9110
/// §8.4), as the HTTP library decodes them: the exact lower-case names.
inline constexpr std::string_view k_accepted_content_codings = "gzip, deflate, br";

/// Why a request's Content-Encoding fields (`content_encodings`, one string
/// per field) refuse its body, or nullopt: none, or one field naming one
/// coding of k_accepted_content_codings or `identity`. Anything else (an
/// unknown coding such as zstd, another spelling such as GZIP, a list such
/// as "gzip, gzip") is 415 (RFC 9110 §15.5.16), answered before the body is
/// read with `Accept-Encoding` naming the codings taken (RFC 9110 §12.5.3):
/// the library would otherwise pass such a body on undecoded. The message
/// quotes at most 64 bytes of the fields.
std::optional<RequestProblem> content_coding_problem(const std::vector<std::string>& content_encodings);

/// The token of an Authorization field value of the Bearer scheme (RFC 6750
/// §2.1: `Bearer 1*SP b64token`), the scheme matched without regard to case
/// (RFC 9110 §11.1) and the spaces after it skipped; nullopt for another
/// scheme or no token. The token is not checked here: the caller compares it.
std::optional<std::string_view> bearer_token(std::string_view authorization);

/// Reads a batch of at most `max_predictions` predictions from `body`. The
/// count is checked before any element is parsed (a body of 100,000
/// predictions costs a scan, not 100,000 parses); each element is parsed by
/// parse_json_strict (nesting at most k_max_json_depth, strict UTF-8, no
/// duplicate keys). An empty batch is a 422.
GradeRequest read_grade_request(std::string_view body, BatchFormat format, std::size_t max_predictions);

}  // namespace failmap::serve
