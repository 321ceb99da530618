#include "grade/report.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "encoding/json.h"
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

  bool text(std::string* out) {
    std::size_t n;
    if (!expect('s') || !count(':', &n)) return false;
    if (n > m_s.size() - m_at) return fail("a string longer than the report");
    std::string_view body = m_s.substr(m_at, n);
    if (!valid_utf8(body)) return fail("a string that is not valid UTF-8");
    *out = std::string(body);
    m_at += n;
    return true;
  }

  bool value(Value* out, int depth, std::size_t* elements) {
    if (at_end()) return fail("expected a value, found the end");
    if (++*elements > k_max_report_elements)
      return fail("a value of more than " + std::to_string(k_max_report_elements) + " elements");
    char tag = m_s[m_at++];
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
        std::string repr(m_s.substr(start, end - start));
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
          if (repr.find_first_not_of("0123456789.e+-") != std::string::npos) return fail("expected a float's repr");
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
      case 'l':
      case 'm': {
        if (depth >= k_max_json_depth)
          return fail("a value nested deeper than " + std::to_string(k_max_json_depth) + " levels");
        std::size_t n;
        if (!count(':', &n)) return false;
        if (n > m_s.size() - m_at) return fail("more elements than the report has bytes");
        if (tag == 'l') {
          if (n > k_max_report_elements) return fail("a list longer than " + std::to_string(k_max_report_elements));
          Value::List items(n);
          for (std::size_t i = 0; i < n; ++i)
            if (!value(&items[i], depth + 1, elements)) return false;
          *out = Value::list(std::move(items));
        } else {
          Value::Dict items;
          items.reserve(n);
          for (std::size_t i = 0; i < n; ++i) {
            std::string key;
            Value v;
            if (++*elements > k_max_report_elements)  // keys count, as the driver counts them
              return fail("a value of more than " + std::to_string(k_max_report_elements) + " elements");
            if (!text(&key) || !value(&v, depth + 1, elements)) return false;
            for (const auto& e : items)
              if (e.first == key) return fail("a dict with a repeated key");
            items.emplace_back(std::move(key), std::move(v));
          }
          *out = Value::dict(std::move(items));
        }
        return true;
      }
      default:
        --m_at;
        return fail("expected a value");
    }
  }

 private:
  std::string_view m_s;
  std::size_t m_at = 0;
  std::string m_why;
};

}  // namespace

CandidateReport read_report(std::string_view bytes, std::size_t calls) {
  CandidateReport out;
  Reader r(bytes);
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
    std::size_t elements = 0;
    bool ok = tag == 'V' ? r.value(&c.value, 0, &elements) : r.text(&c.text);
    if (!ok || !r.expect('\n')) return broken(r.why()), out;
    c.kind = tag == 'V'   ? CallResult::Kind::Returned
             : tag == 'X' ? CallResult::Kind::Raised
                          : CallResult::Kind::Refused;
    out.calls.push_back(std::move(c));
  }
  return out;
}

}  // namespace failmap
