#include "encoding/json_syntax.h"

#include <cstdint>
#include <vector>

#include "encoding/text.h"

namespace failmap {
namespace {

constexpr const char* k_no_trailing_comma = " (JSON has no trailing comma)";

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string hex4(unsigned v) {
  constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(v >> shift) & 15];
  return out;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : m_t(text) {}

  std::optional<JsonSyntaxError> run() {
    enum class State { Value, ValueOrArrayEnd, KeyOrObjectEnd, Key, Colon, AfterValue };
    State state = State::Value;
    for (;;) {
      while (m_i < m_t.size() && is_ws(m_t[m_i])) ++m_i;
      const bool end = m_i == m_t.size();
      const char c = end ? '\0' : m_t[m_i];
      switch (state) {
        case State::ValueOrArrayEnd:
          if (!end && c == ']') {
            m_stack.pop_back();
            ++m_i;
            state = State::AfterValue;
            continue;
          }
          [[fallthrough]];
        case State::Value:
          if (!end && (c == '{' || c == '[')) {
            m_stack.push_back(c);
            ++m_i;
            state = c == '{' ? State::KeyOrObjectEnd : State::ValueOrArrayEnd;
            continue;
          }
          if (!end && c == '"') {
            if (auto e = string()) return e;
          } else if (!end && (c == '-' || is_digit(c)) && !m_t.substr(m_i).starts_with("-Infinity")) {
            if (auto e = number()) return e;
          } else if (!literal()) {
            std::string what =
                state == State::ValueOrArrayEnd ? "expected a JSON value or ']'" : "expected a JSON value";
            what += ", found " + describe_json_found(m_t, m_i);
            if (!end && c == ']' && !m_stack.empty() && m_stack.back() == '[') what += k_no_trailing_comma;
            return error(m_i, std::move(what));
          }
          state = State::AfterValue;
          continue;
        case State::KeyOrObjectEnd:
          if (!end && c == '}') {
            m_stack.pop_back();
            ++m_i;
            state = State::AfterValue;
            continue;
          }
          [[fallthrough]];
        case State::Key:
          if (!end && c == '"') {
            if (auto e = string()) return e;
            state = State::Colon;
            continue;
          }
          return error(m_i, std::string("expected a member name in double quotes") +
                                (state == State::KeyOrObjectEnd ? " or '}'" : "") + ", found " +
                                describe_json_found(m_t, m_i) + (!end && c == '}' ? k_no_trailing_comma : ""));
        case State::Colon:
          if (!end && c == ':') {
            ++m_i;
            state = State::Value;
            continue;
          }
          return error(m_i, "expected ':' after the member name, found " + describe_json_found(m_t, m_i));
        case State::AfterValue:
          if (m_stack.empty()) {
            if (end) return std::nullopt;
            return error(m_i,
                         "expected the end of the text after the JSON value, found " + describe_json_found(m_t, m_i));
          }
          if (m_stack.back() == '[') {
            if (!end && c == ',') state = State::Value;
            else if (!end && c == ']') m_stack.pop_back();
            else return error(m_i, "expected ',' or ']' after an element, found " + describe_json_found(m_t, m_i));
          } else {
            if (!end && c == ',') state = State::Key;
            else if (!end && c == '}') m_stack.pop_back();
            else return error(m_i, "expected ',' or '}' after a member, found " + describe_json_found(m_t, m_i));
          }
          ++m_i;
          continue;
      }
    }
  }

 private:
  static std::optional<JsonSyntaxError> error(std::size_t at, std::string what) {
    return JsonSyntaxError{at, std::move(what)};
  }

  bool literal() {
    for (std::string_view word : {"true", "false", "null"})
      if (m_t.substr(m_i).starts_with(word)) {
        m_i += word.size();
        return true;
      }
    return false;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  std::optional<JsonSyntaxError> number() {
    auto at = [&](std::size_t i) { return i < m_t.size() ? m_t[i] : '\0'; };
    if (at(m_i) == '-') {
      ++m_i;
      if (!is_digit(at(m_i))) return error(m_i, "expected a digit after '-', found " + describe_json_found(m_t, m_i));
    }
    if (at(m_i) == '0') {
      ++m_i;
      if (is_digit(at(m_i)))
        return error(m_i - 1, "a number with a leading zero, found " + describe_json_found(m_t, m_i - 1) +
                                  " (JSON writes 7, not 07)");
    } else {
      while (is_digit(at(m_i))) ++m_i;
    }
    if (at(m_i) == '.') {
      ++m_i;
      if (!is_digit(at(m_i)))
        return error(m_i, "expected a digit after the '.' of a number, found " + describe_json_found(m_t, m_i));
      while (is_digit(at(m_i))) ++m_i;
    }
    if (at(m_i) == 'e' || at(m_i) == 'E') {
      ++m_i;
      if (at(m_i) == '+' || at(m_i) == '-') ++m_i;
      if (!is_digit(at(m_i)))
        return error(m_i, "expected a digit in the exponent of a number, found " + describe_json_found(m_t, m_i));
      while (is_digit(at(m_i))) ++m_i;
    }
    return std::nullopt;
  }

  // The four hex digits of a \u escape at m_t[i] (just past "\u"), or nullopt.
  std::optional<unsigned> hex_at(std::size_t i) const {
    if (i + 4 > m_t.size()) return std::nullopt;
    unsigned v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      char c = m_t[i + k];
      if (!is_hex(c)) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
  }

  // A string from its opening quote at m_i; m_i ends past the closing one.
  std::optional<JsonSyntaxError> string() {
    const std::size_t start = m_i++;
    while (m_i < m_t.size()) {
      auto c = static_cast<unsigned char>(m_t[m_i]);
      if (c == '"') {
        ++m_i;
        return std::nullopt;
      }
      if (c == 0)
        return error(m_i, "a NUL byte (U+0000) inside a string; JSON text cannot hold one raw (write \\u0000)");
      if (c < 0x20)
        return error(m_i, "the control character " + hex4(c) + " inside a string; JSON text holds it only escaped (" +
                              (c == '\n'   ? "\\n"
                               : c == '\t' ? "\\t"
                               : c == '\r' ? "\\r"
                                           : "\\u00" + hex4(c).substr(4)) +
                              ")");
      if (c != '\\') {
        ++m_i;
        continue;
      }
      const std::size_t escape = m_i;
      char e = m_i + 1 < m_t.size() ? m_t[m_i + 1] : '\0';
      if (m_i + 1 < m_t.size() && std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        m_i += 2;
        continue;
      }
      if (m_i + 1 >= m_t.size() || e != 'u')
        return error(
            escape,
            "expected an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX) after the backslash, found " +
                describe_json_found(m_t, escape + 1, 1));
      auto v = hex_at(m_i + 2);
      if (!v)
        return error(escape, "expected four hex digits after \\u, found " + describe_json_found(m_t, escape + 2, 4));
      m_i += 6;
      if (*v >= 0xDC00 && *v <= 0xDFFF)
        return error(escape, "the \\u escape of a lone low surrogate " + hex4(*v) +
                                 ", which is no character (it must follow a high surrogate U+D800..U+DBFF)");
      if (*v >= 0xD800 && *v <= 0xDBFF) {
        auto low = m_i + 1 < m_t.size() && m_t[m_i] == '\\' && m_t[m_i + 1] == 'u' ? hex_at(m_i + 2) : std::nullopt;
        if (!low || *low < 0xDC00 || *low > 0xDFFF)
          return error(m_i, "expected the \\u escape of a low surrogate (\\udc00..\\udfff) after the high surrogate " +
                                hex4(*v) + ", found " + describe_json_found(m_t, m_i, 6));
        m_i += 6;
      }
    }
    return error(start, "a string that is not closed before the end of the text (it starts " +
                            quote_excerpt(m_t.substr(start + 1), 24) + ")");
  }

  std::string_view m_t;
  std::size_t m_i = 0;
  std::vector<char> m_stack;  // '[' or '{' per open container
};

}  // namespace

std::string describe_json_found(std::string_view t, std::size_t at, std::size_t width) {
  if (at >= t.size()) return "the end of the text";
  std::string_view rest = t.substr(at);
  auto c = static_cast<unsigned char>(rest[0]);
  if (c == 0) return "a NUL byte (U+0000); JSON text cannot hold one raw";
  for (std::string_view word : {"NaN", "Infinity", "-Infinity"})
    if (rest.starts_with(word))
      return std::string(word) + ", which JSON does not have (Python's json.dumps writes it; use null or a string)";
  if (rest.starts_with(k_utf8_bom)) return "a UTF-8 byte-order mark (U+FEFF)";
  if (c < 0x20 || c == 0x7F) return "the control character " + hex4(c);
  return quote_excerpt(rest, width);
}

std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view text) { return Scanner(text).run(); }

}  // namespace failmap
