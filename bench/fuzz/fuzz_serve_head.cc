// libFuzzer target: the request-head fields `failmap serve` reads itself
// (src/serve/request.h): the Content-Length fields that frame a body and the
// bearer token of Authorization. The input, split at newlines, is the values
// of the Content-Length fields; the whole input is an Authorization value.
// Invariants: Content-Length is accepted exactly when every comma-separated
// element of every field is decimal digits (blanks around it aside) of one
// length, leading zeros aside, and a refusal names the header; the framing is
// refused (400) for that, or for Transfer-Encoding beside Content-Length, and
// a valid length above the limit is 413; a bearer token
// is a non-empty suffix of the value after "bearer" (any case) and spaces.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "serve/request.h"

namespace {

// The one length every element gives, leading zeros dropped; "" when an element is not digits or two differ.
std::string one_length(const std::vector<std::string>& values) {
  std::string length;
  for (const std::string& v : values) {
    std::size_t start = 0;
    for (;;) {
      std::size_t comma = v.find(',', start);
      std::string e = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      while (!e.empty() && (e.front() == ' ' || e.front() == '\t')) e.erase(0, 1);
      while (!e.empty() && (e.back() == ' ' || e.back() == '\t')) e.pop_back();
      if (e.empty()) return "";
      for (char c : e)
        if (c < '0' || c > '9') return "";
      while (e.size() > 1 && e.front() == '0') e.erase(0, 1);
      if (!length.empty() && e != length) return "";
      length = e;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return length;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> values;
  for (std::size_t start = 0; start <= input.size();) {
    std::size_t nl = input.find('\n', start);
    values.emplace_back(input.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  const auto problem = failmap::serve::content_length_problem(values);
  if (problem.has_value() != one_length(values).empty()) __builtin_trap();
  if (problem && problem->rfind("header 'Content-Length': ", 0) != 0) __builtin_trap();
  if (failmap::serve::content_length_problem({})) __builtin_trap();
  // framing_problem: 400 for what content_length_problem refuses, or beside
  // Transfer-Encoding; else 413 exactly when the one length is above the limit
  // (the limit taken from the input's size, so both sides are reached).
  const std::string length = one_length(values);
  const std::uint64_t limit = size * 7;
  for (bool te : {false, true}) {
    const std::vector<std::string> codings = te ? std::vector<std::string>{"chunked"} : std::vector<std::string>{};
    const auto framing = failmap::serve::framing_problem(values, codings, limit);
    const std::string most = std::to_string(limit);
    const bool too_long = length.size() > most.size() || (length.size() == most.size() && length > most);
    const int want = !length.empty() ? (te ? 400 : too_long ? 413 : 0) : 400;
    if ((framing ? framing->status : 0) != want) __builtin_trap();
  }
  // Without Content-Length, the input as the one Transfer-Encoding: chunked
  // alone (any case, blanks around it) frames a body; any other is 501.
  const auto coded = failmap::serve::framing_problem({}, {std::string(input)}, limit);
  std::string coding(input);
  while (!coding.empty() && (coding.front() == ' ' || coding.front() == '\t')) coding.erase(0, 1);
  while (!coding.empty() && (coding.back() == ' ' || coding.back() == '\t')) coding.pop_back();
  for (char& c : coding) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if ((coded ? coded->status : 0) != (coding == "chunked" ? 0 : 501)) __builtin_trap();
  // The input as the one Content-Encoding: exactly identity, gzip, deflate or
  // br (blanks around it, no other case) is read; anything else, and any two
  // fields, is 415.
  std::string content_coding(input);
  while (!content_coding.empty() && (content_coding.front() == ' ' || content_coding.front() == '\t'))
    content_coding.erase(0, 1);
  while (!content_coding.empty() && (content_coding.back() == ' ' || content_coding.back() == '\t'))
    content_coding.pop_back();
  const bool decoded =
      content_coding == "identity" || content_coding == "gzip" || content_coding == "deflate" || content_coding == "br";
  const auto content = failmap::serve::content_coding_problem({std::string(input)});
  if ((content ? content->status : 0) != (decoded ? 0 : 415)) __builtin_trap();
  if (values.size() > 1 && !failmap::serve::content_coding_problem(values)) __builtin_trap();

  const auto token = failmap::serve::bearer_token(input);
  if (token) {
    if (token->empty() || token->front() == ' ' || input.size() < 7 + token->size()) __builtin_trap();
    if (input.substr(input.size() - token->size()) != *token || input[6] != ' ') __builtin_trap();
    for (std::size_t i = 0; i < 6; ++i)
      if ((input[i] | 0x20) != "bearer"[i]) __builtin_trap();
    for (std::size_t i = 6; i < input.size() - token->size(); ++i)
      if (input[i] != ' ') __builtin_trap();
  }
  return 0;
}
