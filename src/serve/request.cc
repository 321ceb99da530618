#include "serve/request.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/jsonl.h"
#include "grade/completion.h"

namespace failmap::serve {
namespace {

// What a problem's place is called in messages: "request:LINE: field 'F': what".
constexpr const char* k_where = "request";

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

GradeRequest refused(int status, std::string message, std::vector<std::string> problems = {}) {
  GradeRequest r;
  r.problem = RequestProblem{status, std::move(message), std::move(problems)};
  return r;
}

}  // namespace

std::optional<BatchFormat> batch_format_of(std::string_view content_type) {
  const std::string type = lower(trim(content_type.substr(0, content_type.find(';'))));
  if (type == "application/json") return BatchFormat::JsonArray;
  if (type == "application/jsonl" || type == "application/x-ndjson" || type == "application/json-lines")
    return BatchFormat::JsonLines;
  return std::nullopt;
}

std::optional<std::string> content_length_problem(const std::vector<std::string>& values) {
  const auto quoted = [](std::string_view v) {
    return "'" + std::string(v.substr(0, 64)) + (v.size() > 64 ? "…" : "") + "'";
  };
  std::optional<std::string> length;   // the one length, without leading zeros
  const std::string* first = nullptr;  // the field that gave it
  for (const std::string& value : values) {
    std::string_view rest = value;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string element = trim(rest.substr(0, comma));
      const bool digits = !element.empty() && element.find_first_not_of("0123456789") == std::string::npos;
      if (!digits)
        return "header 'Content-Length': expected a length in decimal digits, got " + quoted(value) +
               " (RFC 9112 §6.3)";
      std::string n = element.substr(std::min(element.find_first_not_of('0'), element.size() - 1));
      if (!length) {
        length = std::move(n);
        first = &value;
      } else if (n != *length) {
        return "header 'Content-Length': two different lengths, " +
               (first == &value ? "in " + quoted(value) : quoted(*first) + " and " + quoted(value)) +
               " (RFC 9112 §6.3)";
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return std::nullopt;
}

std::optional<RequestProblem> content_coding_problem(const std::vector<std::string>& content_encodings) {
  if (content_encodings.empty()) return std::nullopt;
  if (content_encodings.size() == 1) {
    const std::string coding = trim(content_encodings.front());
    if (coding == "identity" || coding == "gzip" || coding == "deflate" || coding == "br") return std::nullopt;
  }
  std::string all;
  for (const std::string& v : content_encodings) all += (all.empty() ? "" : ", ") + v;
  return RequestProblem{415,
                        "header 'Content-Encoding': '" + all.substr(0, 64) + (all.size() > 64 ? "…" : "") +
                            "'; this server decodes one coding, named in lower case: " +
                            std::string(k_accepted_content_codings) + " or identity",
                        {}};
}

std::optional<RequestProblem> framing_problem(const std::vector<std::string>& content_lengths,
                                              const std::vector<std::string>& transfer_encodings,
                                              std::uint64_t max_body_bytes) {
  if (auto problem = content_length_problem(content_lengths)) return RequestProblem{400, std::move(*problem), {}};
  if (!transfer_encodings.empty() && !content_lengths.empty())
    return RequestProblem{400,
                          "headers 'Transfer-Encoding' and 'Content-Length' together: a request is framed by one of "
                          "them (RFC 9112 §6.1)",
                          {}};
  if (!transfer_encodings.empty()) {
    if (transfer_encodings.size() == 1 && lower(trim(transfer_encodings.front())) == "chunked") return std::nullopt;
    std::string all;
    for (const std::string& v : transfer_encodings) all += (all.empty() ? "" : ", ") + v;
    return RequestProblem{501,
                          "header 'Transfer-Encoding': '" + all.substr(0, 64) + (all.size() > 64 ? "…" : "") +
                              "'; this server understands chunked alone (RFC 9112 §6.1)",
                          {}};
  }
  if (content_lengths.empty()) return std::nullopt;
  // content_length_problem() accepted them: every element is the same run of
  // digits, perhaps with leading zeros.
  const std::string first =
      trim(std::string_view(content_lengths.front()).substr(0, content_lengths.front().find(',')));
  std::string_view digits = first;
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  std::uint64_t length = 0;
  bool above = false;  // above max_body_bytes, or than any 64-bit length
  for (char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (length > (max_body_bytes - d) / 10 || d > max_body_bytes) {
      above = true;
      break;
    }
    length = length * 10 + d;
  }
  if (above)
    return RequestProblem{413,
                          "the request body is larger than " + std::to_string(max_body_bytes) +
                              " bytes (--max-body; header 'Content-Length': " + std::string(digits.substr(0, 32)) +
                              (digits.size() > 32 ? "…" : "") + "); split the batch",
                          {}};
  return std::nullopt;
}

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() || lower(authorization.substr(0, scheme.size())) != scheme ||
      authorization[scheme.size()] != ' ')
    return std::nullopt;
  std::string_view token = authorization.substr(scheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

GradeRequest read_grade_request(std::string_view body, BatchFormat format, std::size_t max_predictions) {
  // The elements' texts and their lines, counted before anything is parsed.
  std::vector<std::pair<std::string_view, std::uint64_t>> elements;
  std::vector<std::string> problems;
  if (format == BatchFormat::JsonArray) {
    auto parts = json_array_elements(body);
    if (!parts) {
      std::size_t b = 0;
      while (b < body.size() && (body[b] == ' ' || body[b] == '\t' || body[b] == '\r' || body[b] == '\n')) ++b;
      return refused(400,
                     b < body.size() && body[b] == '['
                         ? "the body is not a well-formed JSON array (unbalanced brackets, an unclosed string or an "
                           "empty element)"
                         : "expected a JSON array of predictions ([{\"case\", \"model\", \"sample\", \"source\"}, …]); "
                           "send JSON Lines with Content-Type application/jsonl");
    }
    if (parts->size() > max_predictions)
      return refused(413, std::to_string(parts->size()) + " predictions in one request; at most " +
                              std::to_string(max_predictions) + " (split the batch)");
    std::uint64_t i = 0;
    for (std::string_view p : *parts) elements.emplace_back(p, ++i);
  } else {
    std::string_view rest = body;
    if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
    std::uint64_t line = 0;
    std::optional<std::uint64_t> empty_line;
    while (!rest.empty()) {
      std::size_t nl = rest.find('\n');
      std::string_view text = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      ++line;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      if (text.empty()) {
        if (!empty_line) empty_line = line;
        continue;
      }
      if (empty_line) {
        problems.push_back(std::string(k_where) + ":" + std::to_string(*empty_line) +
                           ": empty line (one prediction a line, no blank lines between them)");
        empty_line.reset();
      }
      if (elements.size() == max_predictions)
        return refused(
            413, "more than " + std::to_string(max_predictions) + " predictions in one request (split the batch)");
      elements.emplace_back(text, line);
    }
    if (!problems.empty()) return refused(400, "the body is not JSON Lines", std::move(problems));
  }
  if (elements.empty())
    return refused(422,
                   "the batch holds no prediction (expected {\"case\", \"model\", \"sample\", \"source\"} objects)");

  GradeRequest out;
  std::vector<InputProblem> bad;
  bool syntax = false;
  std::set<std::tuple<std::string, std::string, std::int64_t>> seen;
  for (const auto& [text, line] : elements) {
    InputProblem p;
    auto j = parse_jsonl_line(text, k_where, line, &p);
    if (!j) {
      bad.push_back(std::move(p));
      syntax = true;
      continue;
    }
    Prediction pred;
    if (!prediction_from_json(*j, k_where, line, &pred, &bad)) continue;
    if (!seen.emplace(pred.case_id, pred.model, pred.sample).second) {
      bad.push_back(input_problem(k_where, line, "sample",
                                  "case " + pred.case_id + ", model " + dump_compact(Json(pred.model)) + ", sample " +
                                      std::to_string(pred.sample) + " is given twice in this batch"));
      continue;
    }
    resolve_completion(pred);
    out.predictions.push_back(std::move(pred));
  }
  if (!bad.empty()) {
    std::vector<std::string> lines;
    for (const InputProblem& p : bad) lines.push_back(describe(p));
    return refused(syntax ? 400 : 422, std::to_string(bad.size()) + " problem(s) in the batch; nothing was graded",
                   std::move(lines));
  }
  return out;
}

}  // namespace failmap::serve
