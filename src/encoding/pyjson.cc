#include "encoding/pyjson.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "encoding/jcs.h"
#include "encoding/json.h"

namespace failmap {

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits from to_chars in scientific form: d.ddde±XX.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  (void)ec;
  std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exponent);
  // CPython (Python/pystrtod.c format_float_short, mode 'r'): decpt is the
  // position of the decimal point relative to the digits.
  int decpt = exponent + 1;
  std::string out = negative ? "-" : "";
  int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    int x = decpt - 1;
    out += 'e';
    out += x < 0 ? '-' : '+';
    int ax = x < 0 ? -x : x;
    if (ax < 10) out += '0';
    out += std::to_string(ax);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= n) {
    out += digits;
    out.append(static_cast<std::size_t>(decpt - n), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<std::size_t>(decpt));
    out += '.';
    out.append(digits, static_cast<std::size_t>(decpt), std::string::npos);
  }
  return out;
}

void append_python_json_string(std::string& out, std::string_view s) {
  // json.dumps (ensure_ascii=False) escapes exactly what RFC 8785 escapes,
  // with the same spellings: '"', '\\', \b \t \n \f \r, other controls as
  // \u00xx in lower-case hex; everything else is copied.
  append_canonical_string(out, s);
}

void append_compact_member(std::string& out, std::string_view key, std::string_view value) {
  out += ",\"";
  out += key;
  out += "\":";
  append_python_json_string(out, value);
}

void append_python_json(std::string& out, const Value& v, JsonSeparators separators) {
  switch (v.kind()) {
    case Value::Kind::None:
      out += "null";
      return;
    case Value::Kind::Bool:
      out += v.as_bool() ? "true" : "false";
      return;
    case Value::Kind::Int: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.as_int());
      (void)ec;
      out.append(buf, end);
      return;
    }
    case Value::Kind::Float: {
      double d = v.as_float();
      if (std::isnan(d)) out += "NaN";
      else if (std::isinf(d)) out += d > 0 ? "Infinity" : "-Infinity";
      else out += python_float_repr(d);
      return;
    }
    case Value::Kind::Str:
      append_python_json_string(out, v.as_str());
      return;
    case Value::Kind::List: {
      out.push_back('[');
      bool first = true;
      for (const Value& x : v.as_list()) {
        if (!first) out += separators == JsonSeparators::Python ? ", " : ",";
        first = false;
        append_python_json(out, x, separators);
      }
      out.push_back(']');
      return;
    }
    case Value::Kind::Dict: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, x] : v.as_dict()) {
        if (!first) out += separators == JsonSeparators::Python ? ", " : ",";
        first = false;
        append_python_json_string(out, key);
        out += separators == JsonSeparators::Python ? ": " : ":";
        append_python_json(out, x, separators);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string python_json(const Value& v) {
  std::string out;
  append_python_json(out, v);
  return out;
}

std::string python_str_repr(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(ch);
    }
  }
  out.push_back(quote);
  return out;
}

std::string python_repr(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return v.as_bool() ? "True" : "False";
    case Value::Kind::Int:
      return std::to_string(v.as_int());
    case Value::Kind::Float:
      return python_float_repr(v.as_float());
    case Value::Kind::Str:
      return python_str_repr(v.as_str());
    case Value::Kind::List: {
      std::string out = "[";
      bool first = true;
      for (const Value& x : v.as_list()) {
        if (!first) out += ", ";
        first = false;
        out += python_repr(x);
      }
      return out + "]";
    }
    case Value::Kind::Dict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, x] : v.as_dict()) {
        if (!first) out += ", ";
        first = false;
        out += python_str_repr(key) + ": " + python_repr(x);
      }
      return out + "}";
    }
  }
  return "";
}

}  // namespace failmap

namespace failmap {

namespace {

// Recursive descent over json.dumps output. Strings and numbers are handed,
// token by token, to the strict parser (encoding/json.h), so escapes, UTF-8 and
// number spelling are judged exactly as everywhere else; only NaN,
// Infinity and -Infinity, which strict JSON lacks, are read here.
class PythonJsonReader {
 public:
  PythonJsonReader(std::string_view text, const std::string& where, std::size_t max_elements)
      : m_text(text), m_where(where), m_max_elements(max_elements) {}

  Result<Value> document() {
    Value v;
    FAILMAP_TRY(value(v, 0));
    skip_space();
    if (m_at != m_text.size()) return fail("text after the value");
    return v;
  }

 private:
  Error fail(const std::string& what) const {
    return input_error(m_where + ": byte " + std::to_string(m_at) + ": " + what +
                       " (expected JSON as Python's json.dumps prints it)");
  }
  void skip_space() {
    while (m_at < m_text.size() &&
           (m_text[m_at] == ' ' || m_text[m_at] == '\t' || m_text[m_at] == '\n' || m_text[m_at] == '\r'))
      ++m_at;
  }
  bool word(std::string_view w) {
    if (m_text.substr(m_at, w.size()) != w) return false;
    m_at += w.size();
    return true;
  }
  Status counted() {
    if (++m_elements > m_max_elements) return fail("more than " + std::to_string(m_max_elements) + " elements in all");
    return ok_status();
  }
  // The string token at m_at, decoded by the strict parser.
  Status string(std::string& out) {
    std::size_t end = m_at + 1;
    while (end < m_text.size() && m_text[end] != '"') end += m_text[end] == '\\' ? 2 : 1;
    if (end >= m_text.size()) return fail("a string that is not closed");
    FAILMAP_TRY_ASSIGN(
        auto j, parse_json_strict(m_text.substr(m_at, end + 1 - m_at), m_where + ": byte " + std::to_string(m_at)));
    out = j.get<std::string>();
    m_at = end + 1;
    return ok_status();
  }
  Status number(Value& out) {
    std::size_t end = m_at;
    while (end < m_text.size() && std::string_view("+-0123456789.eE").find(m_text[end]) != std::string_view::npos)
      ++end;
    std::string_view token = m_text.substr(m_at, end - m_at);
    FAILMAP_TRY_ASSIGN(auto j, parse_json_strict(token, m_where + ": byte " + std::to_string(m_at)));
    FAILMAP_TRY_ASSIGN(out, value_from_json(j, m_where + ": byte " + std::to_string(m_at)));
    m_at = end;
    return ok_status();
  }
  Status value(Value& out, int depth) {
    skip_space();
    if (m_at >= m_text.size()) return fail("the text ends where a value was expected");
    FAILMAP_TRY(counted());
    char c = m_text[m_at];
    if (word("null")) out = Value::none();
    else if (word("true")) out = Value::boolean(true);
    else if (word("false")) out = Value::boolean(false);
    else if (word("NaN")) out = Value::floating(std::numeric_limits<double>::quiet_NaN());
    else if (word("Infinity")) out = Value::floating(std::numeric_limits<double>::infinity());
    else if (word("-Infinity")) out = Value::floating(-std::numeric_limits<double>::infinity());
    else if (c == '"') {
      std::string s;
      FAILMAP_TRY(string(s));
      out = Value::str(std::move(s));
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      return number(out);
    } else if (c == '[' || c == '{') {
      if (depth + 1 > k_max_json_depth)
        return fail("nested deeper than " + std::to_string(k_max_json_depth) + " levels");
      ++m_at;
      const char close = c == '[' ? ']' : '}';
      Value::List items;
      Value::Dict members;
      std::set<std::string> keys;
      skip_space();
      if (m_at < m_text.size() && m_text[m_at] == close) {
        ++m_at;
      } else {
        for (;;) {
          Value item;
          if (close == '}') {
            skip_space();
            if (m_at >= m_text.size() || m_text[m_at] != '"') return fail("an object key that is not a string");
            std::string key;
            const std::size_t key_at = m_at;
            FAILMAP_TRY(string(key));
            if (!keys.insert(key).second) {
              m_at = key_at;
              return fail("the key \"" + key + "\" twice in one object");
            }
            skip_space();
            if (!word(":")) return fail("no ':' after an object key");
            FAILMAP_TRY(value(item, depth + 1));
            members.emplace_back(std::move(key), std::move(item));
          } else {
            FAILMAP_TRY(value(item, depth + 1));
            items.push_back(std::move(item));
            if (items.size() > k_max_list_length)
              return fail("a list longer than " + std::to_string(k_max_list_length));
          }
          skip_space();
          if (word(",")) continue;
          if (word(std::string_view(&close, 1))) break;
          return fail(std::string("no ',' or '") + close + "' after an element");
        }
      }
      out = close == ']' ? Value::list(std::move(items)) : Value::dict(std::move(members));
    } else {
      return fail("no JSON value starts here");
    }
    return ok_status();
  }

  std::string_view m_text;
  const std::string& m_where;
  std::size_t m_at = 0;
  std::size_t m_elements = 0;
  std::size_t m_max_elements;
};

}  // namespace

Result<Value> parse_python_json(std::string_view text, const std::string& where, std::size_t max_elements) {
  return PythonJsonReader(text, where, max_elements).document();
}

}  // namespace failmap
