#include "grade/report.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/text.h"

namespace failmap {

namespace {

// A cursor over the report with the grammar's small readers; every reader
// returns false (with m_why set) at the first byte that breaks the grammar.
class Reader {
 public:
  explicit Reader(std::string_view s) : m_s(s) {}

  bool at_end() const { return m_at >= m_s.size(); }
  std::size_t at() const { return m_at; }
  const std::string& why() const { return m_why; }
  char peek() const { return m_s[m_at]; }

  bool fail(std::string why) {
    if (m_why.empty()) m_why = std::move(why);
    return false;
  }

  bool expect(char c) {
    if (at_end() || m_s[m_at] != c)
      return fail(std::string("expected '") + c + "'" + (at_end() ? ", found the end" : ""));
    ++m_at;
    return true;
  }

  // Decimal digits up to `stop`, as an unsigned count (at most 10 digits).
  bool count(char stop, std::size_t* out) {
    std::size_t start = m_at;
    while (!at_end() && m_s[m_at] >= '0' && m_s[m_at] <= '9') ++m_at;
    if (m_at == start || m_at - start > 10) return fail("expected a count");
    auto [p, ec] = std::from_chars(m_s.data() + start, m_s.data() + m_at, *out);
    if (ec != std::errc()) return fail("expected a count");
    return expect(stop);
  }

  // A string (s<n>:<n bytes of UTF-8>), viewed where it lies in the report.
  bool text_view(std::string_view* out) {
    std::size_t n;
    if (!expect('s') || !count(':', &n)) return false;
    if (n > m_s.size() - m_at) return fail("a string longer than the report");
    std::string_view body = m_s.substr(m_at, n);
    if (!valid_utf8(body)) return fail("a string that is not valid UTF-8");
    *out = body;
    m_at += n;
    return true;
  }

  bool text(std::string* out) {
    std::string_view body;
    if (!text_view(&body)) return false;
    *out = std::string(body);
    return true;
  }

  // One scalar (n, t, f, i, d or s) into `*out`; the tag is at m_at.
  bool scalar(char tag, Value* out) {
    switch (tag) {
      case 'n':
        *out = Value::none();
        return true;
      case 't':
        *out = Value::boolean(true);
        return true;
      case 'f':
        *out = Value::boolean(false);
        return true;
      case 'i': {
        std::size_t start = m_at;
        std::size_t end = m_s.find(';', start);
        if (end == std::string_view::npos || end - start > 21) return fail("expected an int");
        std::int64_t i;
        auto [p, ec] = std::from_chars(m_s.data() + start, m_s.data() + end, i);
        if (ec != std::errc() || p != m_s.data() + end) return fail("expected an int within int64");
        m_at = end + 1;
        *out = Value::integer(i);
        return true;
      }
      case 'd': {
        std::size_t start = m_at;
        std::size_t end = m_s.find(';', start);
        if (end == std::string_view::npos || end - start > 32) return fail("expected a float");
        std::string_view repr = m_s.substr(start, end - start);
        double d;
        if (repr == "nan") {
          d = std::nan("");
        } else if (repr == "inf") {
          d = INFINITY;
        } else if (repr == "-inf") {
          d = -INFINITY;
        } else {
          // Python's float repr: digits, '.', 'e', sign. from_chars reads it
          // exactly (correctly rounded, locale-free).
          if (repr.find_first_not_of("0123456789.e+-") != std::string_view::npos)
            return fail("expected a float's repr");
          auto [p, ec] = std::from_chars(repr.data(), repr.data() + repr.size(), d);
          if (ec != std::errc() || p != repr.data() + repr.size() || !std::isfinite(d))
            return fail("expected a float's repr");
        }
        m_at = end + 1;
        *out = Value::floating(d);
        return true;
      }
      case 's': {
        --m_at;
        std::string s;
        if (!text(&s)) return false;
        *out = Value::str(std::move(s));
        return true;
      }
      default:
        --m_at;
        return fail("expected a value");
    }
  }

  // One value, checked against the grammar and the limits, and given as
  // asked: built into `*out` when out is set, its Python JSON text appended
  // to `*json` when json is set, neither (checked alone) when both are null.
  bool value(Value* out, std::string* json, int depth, std::size_t* elements) {
    if (at_end()) return fail("expected a value, found the end");
    if (++*elements > k_max_report_elements)
      return fail("a value of more than " + std::to_string(k_max_report_elements) + " elements");
    char tag = m_s[m_at++];
    if (tag != 'l' && tag != 'm') {
      Value v;
      if (!scalar(tag, &v)) return false;
      if (json) append_python_json(*json, v);
      if (out) *out = std::move(v);
      return true;
    }
    if (depth >= k_max_json_depth)
      return fail("a value nested deeper than " + std::to_string(k_max_json_depth) + " levels");
    std::size_t n;
    if (!count(':', &n)) return false;
    if (n > m_s.size() - m_at) return fail("more elements than the report has bytes");
    if (json) *json += tag == 'l' ? '[' : '{';
    if (tag == 'l') {
      if (n > k_max_report_elements) return fail("a list longer than " + std::to_string(k_max_report_elements));
      Value::List items(out ? n : 0);
      for (std::size_t i = 0; i < n; ++i) {
        if (json && i) *json += ", ";
        if (!value(out ? &items[i] : nullptr, json, depth + 1, elements)) return false;
      }
      if (out) *out = Value::list(std::move(items));
    } else {
      Value::Dict items;
      if (out) items.reserve(n);
      // Keys seen, to refuse a repeat: a hash set, since a dict may hold
      // hundreds of thousands of them.
      std::unordered_set<std::string_view> keys;
      for (std::size_t i = 0; i < n; ++i) {
        if (++*elements > k_max_report_elements)  // keys count, as the driver counts them
          return fail("a value of more than " + std::to_string(k_max_report_elements) + " elements");
        std::string_view key;
        if (!text_view(&key)) return false;
        if (!keys.insert(key).second) return fail("a dict with a repeated key");
        if (json) {
          if (i) *json += ", ";
          append_python_json_string(*json, key);
          *json += ": ";
        }
        Value v;
        if (!value(out ? &v : nullptr, json, depth + 1, elements)) return false;
        if (out) items.emplace_back(std::string(key), std::move(v));
      }
      if (out) *out = Value::dict(std::move(items));
    }
    if (json) *json += tag == 'l' ? ']' : '}';
    return true;
  }

 private:
  std::string_view m_s;
  std::size_t m_at = 0;
  std::string m_why;
};

}  // namespace

CandidateReport read_report(std::string bytes, std::size_t calls) {
  CandidateReport out;
  out.bytes = std::move(bytes);
  Reader r(out.bytes);
  auto broken = [&](const std::string& why) {
    out.done = false;  // a report that breaks the grammar did not end, whatever it said before
    out.error = GradeError{"output", "the candidate's report breaks its grammar at byte " + std::to_string(r.at() + 1) +
                                         ": " + why + " (its process wrote to the report pipe itself?)"};
  };
  while (!r.at_end()) {
    char tag = r.peek();
    if (out.done) return broken("records after the end record"), out;
    if (out.error) return broken("records after an error record"), out;
    r.expect(tag);
    if (tag == 'D') {
      if (!r.expect('\n')) return broken(r.why()), out;
      if (out.calls.size() != calls)
        return broken("the end record after " + std::to_string(out.calls.size()) + " of " + std::to_string(calls) +
                      " calls"),
               out;
      out.done = true;
      continue;
    }
    if (tag == 'S' || tag == 'L' || tag == 'I') {
      std::string text;
      if (!r.text(&text) || !r.expect('\n')) return broken(r.why()), out;
      if (!out.calls.empty()) return broken("a load error after a call"), out;
      out.error = GradeError{tag == 'S' ? "syntax" : tag == 'I' ? "import" : "exception", std::move(text)};
      continue;
    }
    if (tag != 'V' && tag != 'X' && tag != 'T' && tag != 'M') return broken("expected a record"), out;
    std::size_t index;
    if (!r.count(tag == 'M' ? '\n' : ':', &index)) return broken(r.why()), out;
    if (index != out.calls.size() || index >= calls)
      return broken("a record of call " + std::to_string(index) + " where call " + std::to_string(out.calls.size()) +
                    " of " + std::to_string(calls) + " was due"),
             out;
    if (tag == 'M') {
      out.error = GradeError{"memory", "the candidate ran out of memory in call " + std::to_string(index + 1)};
      continue;
    }
    CallResult c;
    bool ok;
    if (tag == 'V') {
      // Checked here, kept as its bytes: read back only as far as a
      // comparison or the observation document needs it.
      const std::size_t begin = r.at();
      std::size_t elements = 0;
      ok = r.value(nullptr, nullptr, 0, &elements);
      c.encoded = CallResult::Encoded{begin, r.at() - begin, elements};
    } else {
      ok = r.text(&c.text);
    }
    if (!ok || !r.expect('\n')) return broken(r.why()), out;
    c.kind = tag == 'V'   ? CallResult::Kind::Returned
             : tag == 'X' ? CallResult::Kind::Raised
                          : CallResult::Kind::Refused;
    out.calls.push_back(std::move(c));
  }
  return out;
}

std::size_t value_elements(const Value& v) {
  std::size_t n = 1;
  if (v.is_list())
    for (const Value& x : v.as_list()) n += value_elements(x);
  if (v.is_dict())
    for (const auto& [key, x] : v.as_dict()) n += 1 + value_elements(x);
  return n;
}

Value CandidateReport::returned(std::size_t i) const {
  const CallResult& c = calls.at(i);
  if (!c.encoded) return c.value;
  Reader r(std::string_view(bytes).substr(c.encoded->begin, c.encoded->size));
  Value v;
  std::size_t elements = 0;
  r.value(&v, nullptr, 0, &elements);  // checked by read_report
  return v;
}

bool CandidateReport::returned_equals(std::size_t i, const Value& expected) const {
  const CallResult& c = calls.at(i);
  if (c.kind != CallResult::Kind::Returned) return false;
  if (!c.encoded) return python_equal(c.value, expected);
  // Equal values have the same shape (a list equals only a list of as many
  // equal elements, a dict only one of the same keys), so the same count:
  // a value of another count is unequal without being built, and one that
  // is built is no larger than the case's own expected value.
  if (c.encoded->elements != value_elements(expected)) return false;
  return python_equal(returned(i), expected);
}

void CandidateReport::append_returned_json(std::string& out, std::size_t i) const {
  const CallResult& c = calls.at(i);
  if (!c.encoded) return append_python_json(out, c.value);
  Reader r(std::string_view(bytes).substr(c.encoded->begin, c.encoded->size));
  std::size_t elements = 0;
  r.value(nullptr, &out, 0, &elements);  // checked by read_report
}

}  // namespace failmap
