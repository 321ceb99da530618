#include "encoding/json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include <rapidjson/reader.h>

#include "encoding/json_reference.h"
#include "encoding/json_syntax.h"
#include "encoding/pyjson.h"
#include "encoding/text.h"

namespace failmap {
namespace {

std::pair<std::size_t, std::size_t> line_col(std::string_view text, std::size_t offset) {
  return text_line_col(text, offset);
}

// SAX pass that enforces what nlohmann's DOM parser would silently accept.
// It tracks the path of the current value so a refusal names the field.
class StrictChecker : public nlohmann::json_sax<Json> {
 public:
  std::string problem;
  std::string problem_path;
  std::size_t problem_offset = 0;
  bool syntax_error = false;
  int error_id = 0;  // nlohmann's exception id of a syntax error (406: number overflow)

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t v) override {
    value();
    if (v > static_cast<number_unsigned_t>(INT64_MAX)) return refuse("integer " + std::to_string(v) + " exceeds int64");
    return true;
  }
  bool number_float(number_float_t v, const string_t& s) override {
    value();
    if (s.find_first_of(".eE") == string_t::npos) return refuse("integer " + s + " exceeds int64");
    if (!std::isfinite(v)) return refuse("number " + s + " overflows a double");
    return true;
  }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    value();
    m_frames.push_back(Frame{false, 0, {}, {}});
    return enter();
  }
  bool key(string_t& k) override {
    m_frames.back().key = k;
    if (!m_frames.back().keys.insert(k).second) return refuse("duplicate key \"" + k + "\"");
    return true;
  }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override {
    value();
    m_frames.push_back(Frame{true, 0, {}, {}});
    return enter();
  }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    syntax_error = true;
    error_id = ex.id;
    problem = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> keep the reason.
    auto colon = problem.find(": ");
    if (colon != std::string::npos) problem = problem.substr(colon + 2);
    // "...; last read: '<the whole token so far>'": a torn string quotes up to
    // the whole rest of its line; its last 40 bytes locate it well enough.
    constexpr std::string_view k_last_read = "; last read: '";
    auto last = problem.find(k_last_read);
    if (last != std::string::npos && problem.size() > last + k_last_read.size() + 41) {
      std::size_t cut = problem.size() - 41;  // keep 40 bytes and the closing quote
      while (cut < problem.size() && (static_cast<unsigned char>(problem[cut]) & 0xC0) == 0x80) ++cut;
      problem = problem.substr(0, last + k_last_read.size()) + "..." + problem.substr(cut);
    }
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'" (no colon): say what is allowed.
    if (ex.id == 406) {
      auto quote = problem.find('\'');
      problem = "number " + (quote == std::string::npos ? std::string("") : problem.substr(quote) + " ") +
                "is beyond the range of a 64-bit float (at most about 1.8e308); values are kept exactly or refused, "
                "never rounded to infinity";
    }
    problem_offset = position == 0 ? 0 : position - 1;
    return false;
  }

 private:
  struct Frame {
    bool is_array;
    std::size_t count;
    std::string key;
    std::set<std::string> keys;
  };
  bool value() {
    if (!m_frames.empty() && m_frames.back().is_array) m_frames.back().key = std::to_string(m_frames.back().count++);
    return true;
  }
  bool enter() {
    if (m_frames.size() > static_cast<std::size_t>(k_max_json_depth)) {
      m_frames.pop_back();  // the refused container is its parent's current member (no "[]" in the path)
      return refuse("nesting deeper than " + std::to_string(k_max_json_depth));
    }
    return true;
  }
  bool leave() {
    m_frames.pop_back();
    return true;
  }
  bool refuse(std::string what) {
    problem = std::move(what);
    // The refused value itself is the innermost frame's current member.
    for (const Frame& f : m_frames)
      problem_path += f.is_array ? "[" + f.key + "]" : (problem_path.empty() ? "" : ".") + f.key;
    return false;
  }
  std::vector<Frame> m_frames;
};

// One SAX pass that both checks (StrictChecker) and builds the document
// (nlohmann's own DOM builder), instead of a checking pass and a parse.
class StrictDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  StrictDomBuilder(StrictChecker& checker, Json& result) : m_checker(checker), m_dom(result, false) {}
  bool null() { return m_checker.null() && m_dom.null(); }
  bool boolean(bool v) { return m_checker.boolean(v) && m_dom.boolean(v); }
  bool number_integer(number_integer_t v) { return m_checker.number_integer(v) && m_dom.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return m_checker.number_unsigned(v) && m_dom.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) {
    return m_checker.number_float(v, s) && m_dom.number_float(v, s);
  }
  bool string(string_t& v) { return m_checker.string(v) && m_dom.string(v); }
  bool binary(binary_t& v) { return m_checker.binary(v) && m_dom.binary(v); }
  bool start_object(std::size_t n) { return m_checker.start_object(n) && m_dom.start_object(n); }
  bool key(string_t& k) { return m_checker.key(k) && m_dom.key(k); }
  bool end_object() { return m_checker.end_object() && m_dom.end_object(); }
  bool start_array(std::size_t n) { return m_checker.start_array(n) && m_dom.start_array(n); }
  bool end_array() { return m_checker.end_array() && m_dom.end_array(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) {
    return m_checker.parse_error(position, token, ex);
  }

 private:
  StrictChecker& m_checker;
  nlohmann::detail::json_sax_dom_parser<Json> m_dom;
};

}  // namespace

namespace {

// The fast path of parse_json_strict: RapidJSON's reader (in situ, on a
// NUL-terminated copy) feeding the same nlohmann DOM builder the strict
// parser uses, so an accepted text gives the same document. It builds only
// what it is sure the strict parser accepts as is, and gives up (the handler
// returns false) on everything it would have to judge: a number that is not
// an int64 (or uint64 up to INT64_MAX) or a finite double, a duplicate key,
// an object of more than k_keys_checked members, nesting deeper than
// k_max_json_depth; the caller also keeps away texts with a NUL byte or a
// \u escape (RapidJSON 1.1 lets a lone low surrogate through). Syntax errors
// give up too: nlohmann's parser then words every problem.
class FastDomBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, FastDomBuilder> {
 public:
  static constexpr std::size_t k_keys_checked = 64;
  FastDomBuilder(Json& result, rapidjson::InsituStringStream& in, const char* base)
      : m_dom(result, false), m_in(in), m_base(base) {}
  bool Null() { return m_dom.null(); }
  bool Bool(bool b) { return m_dom.boolean(b); }
  bool Int(int) { return number(); }
  bool Uint(unsigned) { return number(); }
  bool Int64(std::int64_t) { return number(); }
  bool Uint64(std::uint64_t) { return number(); }
  bool Double(double) { return number(); }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    std::string v(s, n);
    return m_dom.string(v);
  }
  bool StartObject() {
    if (++m_depth > k_max_json_depth) return false;
    m_frames.push_back(m_keys.size());
    return m_dom.start_object(static_cast<std::size_t>(-1));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    std::string_view k(s, n);  // in situ: stays valid in the buffer
    std::size_t first = m_frames.back();
    if (m_keys.size() - first >= k_keys_checked) return false;
    for (std::size_t i = first; i < m_keys.size(); ++i)
      if (m_keys[i] == k) return false;
    m_keys.push_back(k);
    std::string key(k);
    return m_dom.key(key);
  }
  bool EndObject(rapidjson::SizeType) {
    m_keys.resize(m_frames.back());
    m_frames.pop_back();
    --m_depth;
    return m_dom.end_object();
  }
  bool StartArray() {
    if (++m_depth > k_max_json_depth) return false;
    return m_dom.start_array(static_cast<std::size_t>(-1));
  }
  bool EndArray(rapidjson::SizeType) {
    --m_depth;
    return m_dom.end_array();
  }

 private:
  static bool number_char(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  }
  // The number's own text, converted as nlohmann's lexer does (strtod for a
  // float, an integer kind by sign), not RapidJSON's value. The stream stands
  // at the number's start (RapidJSON reads numbers from a local copy of an in
  // situ stream) or, were that to change, just after it.
  bool number() {
    const char* p = m_base + m_in.Tell();
    const char* begin = p;
    const char* end = p;
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
      while (number_char(*end)) ++end;
    } else {
      while (begin > m_base && number_char(begin[-1])) --begin;
    }
    std::string_view t(begin, static_cast<std::size_t>(end - begin));
    if (t.empty()) return false;
    if (t.find_first_of(".eE") != std::string_view::npos) {
      char buf[64];
      if (t.size() >= sizeof buf) return false;
      std::memcpy(buf, t.data(), t.size());
      buf[t.size()] = '\0';
      char* stop = nullptr;
      double v = std::strtod(buf, &stop);
      if (stop != buf + t.size() || !std::isfinite(v)) return false;
      std::string unused;
      return m_dom.number_float(v, unused);
    }
    if (t[0] == '-') {
      std::int64_t v = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
      return m_dom.number_integer(v);
    }
    std::uint64_t v = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || v > static_cast<std::uint64_t>(INT64_MAX)) return false;
    return m_dom.number_unsigned(v);
  }
  nlohmann::detail::json_sax_dom_parser<Json> m_dom;
  rapidjson::InsituStringStream& m_in;
  const char* m_base;
  int m_depth = 0;
  std::vector<std::size_t> m_frames;  // per open object: its first key in m_keys
  std::vector<std::string_view> m_keys;
};

std::optional<Json> parse_json_fast(std::string_view text) {
  if (text.find('\0') != std::string_view::npos || text.find("\\u") != std::string_view::npos) return std::nullopt;
  thread_local std::string scratch;
  scratch.assign(text);
  scratch.append(4, '\0');  // the in situ stream's end, and slack past it
  Json result;
  rapidjson::InsituStringStream in(scratch.data());
  FastDomBuilder builder(result, in, scratch.data());
  rapidjson::Reader reader;
  if (!reader.Parse<rapidjson::kParseInsituFlag>(in, builder)) return std::nullopt;
  return result;
}

}  // namespace

namespace {
constexpr std::size_t k_described_bytes = 57;  // of a string describe_json_value shows
}  // namespace

std::string describe_json_value(const Json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "the string " + quote_excerpt(v.get_ref<const std::string&>(), k_described_bytes);
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (v.is_number()) return "the number " + text;
  return text;
}

std::string describe_json_text(std::string_view text) {
  if (auto j = parse_json_strict(text, "")) return describe_json_value(*j);
  return "text that is not JSON, " + quote_excerpt(text, k_described_bytes);
}

namespace {

// The error "WHERE[:LINE:COL]: what", its parts also in `parts` when given.
Error json_error(const std::string& where, JsonParseError e, JsonParseError* parts) {
  std::string message = where;
  if (e.line) message += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  message += ": " + e.what;
  if (parts) *parts = std::move(e);
  return input_error(std::move(message));
}

}  // namespace

namespace {

// A BOM at the start of a line of a JSON text (a file's own was skipped by
// its reader): where JSON syntax would fail with its bytes shown raw, the
// error names it. At a line start it is never inside a string (a JSON string
// holds no raw newline). Elsewhere outside strings the syntax error's
// excerpt shows it escaped.
std::optional<std::size_t> bom_at_line_start(std::string_view text) {
  for (std::size_t at = text.find(k_utf8_bom); at != std::string_view::npos; at = text.find(k_utf8_bom, at + 1))
    if (at == 0 || text[at - 1] == '\n') return at;
  return std::nullopt;
}

// The first encoding problem of a JSON text by position, the same for both
// readers: a BOM at the start of a line (k_bom_refused) or invalid UTF-8.
// Both are looked for before any syntax, so a text holding both is refused
// for whichever comes first.
std::optional<Error> encoding_problem(std::string_view text, const std::string& where, JsonParseError* parts) {
  const std::size_t bad = first_invalid_utf8(text);
  if (auto bom = bom_at_line_start(text.substr(0, bad))) {
    auto [l, c] = line_col(text, *bom);
    return json_error(where, {l, c, std::string(k_bom_refused)}, parts);
  }
  if (bad != std::string_view::npos) {
    auto [l, c] = line_col(text, bad);
    return json_error(where, {l, c, "invalid UTF-8"}, parts);
  }
  return std::nullopt;
}

}  // namespace

Result<Json> parse_json_strict(std::string_view text, const std::string& where, JsonParseError* parts) {
  if (auto problem = encoding_problem(text, where, parts)) return std::move(*problem);
  if (auto fast = parse_json_fast(text)) return std::move(*fast);
  return parse_json_strict_reference(text, where, parts);
}

Result<Json> parse_json_file(std::string_view text, const std::string& where, JsonParseError* parts) {
  if (text.starts_with(k_utf8_bom)) {
    text.remove_prefix(k_utf8_bom.size());
    if (text.starts_with(k_utf8_bom)) return json_error(where, {1, 4, std::string(k_second_bom)}, parts);
  }
  return parse_json_strict(text, where, parts);
}

Result<Json> parse_json_strict_reference(std::string_view text, const std::string& where, JsonParseError* parts) {
  // nlohmann's lexer would skip a leading BOM silently.
  if (auto problem = encoding_problem(text, where, parts)) return std::move(*problem);
  // (nlohmann's words for it: "syntax error while parsing value - unexpected end of input; ...")
  if (text.find_first_not_of(" \t\n\r") == std::string_view::npos)
    return json_error(
        where, {0, 0, std::string("expected a JSON value, got ") + (text.empty() ? "empty text" : "only whitespace")},
        parts);
  StrictChecker checker;
  Json result;
  StrictDomBuilder builder(checker, result);
  bool ok = Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json, true, false);
  if (!ok) {
    if (!checker.syntax_error) {
      std::string at = checker.problem_path.empty() ? "" : " (field '" + checker.problem_path + "')";
      return json_error(where, {0, 0, checker.problem + at}, parts);
    }
    // nlohmann's words are a parser's ("syntax error while parsing object
    // key - unexpected end of input; expected string literal"): the scanner
    // says what was expected and found. Its lexer's number overflow (406)
    // is no syntax error; the checker words it.
    if (checker.error_id != 406)
      if (auto syntax = find_json_syntax_error(text)) {
        auto [l, c] = line_col(text, syntax->offset);
        return json_error(where, {l, c, std::move(syntax->what)}, parts);
      }
    auto [l, c] = line_col(text, checker.problem_offset);
    return json_error(where, {l, c, checker.problem}, parts);
  }
  // nlohmann's lexer ends the text at a NUL byte outside a string: what
  // follows it would be dropped unread.
  if (text.find('\0') != std::string_view::npos)
    if (auto syntax = find_json_syntax_error(text)) {
      auto [l, c] = line_col(text, syntax->offset);
      return json_error(where, {l, c, std::move(syntax->what)}, parts);
    }
  return result;
}

namespace {

// Fast path for the values failmap itself stores most: integers and (nested)
// lists of them in python_json spelling ("[[1, 1, 1], 2]"), parsed into a
// Value whose list storage (and its elements', recursively) is reused, so
// text of the shape the Value already has allocates nothing. Each read is
// false for anything else (floats, strings, other spacing, int64 overflow,
// deep nesting: the strict reader says why), the Value then unspecified.
// The position is a local pointer rather than an index behind a pointer,
// which the compiler would reload after every store into a Value.
class IntListReader {
 public:
  IntListReader(std::string_view text, std::size_t pos)
      : m_begin(text.data()), m_p(text.data() + pos), m_end(text.data() + text.size()) {}
  std::size_t pos() const { return static_cast<std::size_t>(m_p - m_begin); }

  // A value at nesting `depth` into `*v`.
  bool value(int depth, Value* v) {
    if (m_p == m_end || depth > k_max_json_depth) return false;
    if (*m_p == '[') {
      ++m_p;
      if (!v->is_list()) *v = Value::list({});
      return items(depth, &v->as_list());
    }
    return integer(v);
  }

  // An int at a position that is not the end and not '[' into `*v`.
  // Inlined into items(): most elements are ints, read without a call.
  [[gnu::always_inline]] bool integer(Value* v) {
    const bool negative = *m_p == '-';
    if (negative) ++m_p;
    const char* digits = m_p;
    std::int64_t n = 0;
    for (; m_p != m_end && *m_p >= '0' && *m_p <= '9'; ++m_p)
      if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *m_p - '0', &n)) return false;
    if (m_p == digits || (m_p - digits > 1 && *digits == '0')) return false;
    v->set_int(negative ? -n : n);
    return true;
  }

  // The elements of a list at nesting `depth` whose '[' was just read, into
  // `*list` (reused), up to and past its ']'.
  bool items(int depth, Value::List* list) {
    if (m_p != m_end && *m_p == ']') {
      ++m_p;
      list->clear();
      return true;
    }
    for (std::size_t n = 0;;) {
      if (n == list->size()) list->emplace_back();
      Value& element = (*list)[n++];
      // value(depth + 1, ...) without the call when it would read an int.
      const bool is_int = m_p != m_end && *m_p != '[' && depth + 1 <= k_max_json_depth;
      if (is_int ? !integer(&element) : !value(depth + 1, &element)) return false;
      if (m_p != m_end && *m_p == ']') {
        ++m_p;
        list->resize(n);
        return true;
      }
      if (m_end - m_p < 2 || m_p[0] != ',' || m_p[1] != ' ') return false;
      m_p += 2;
    }
  }

 private:
  const char* m_begin;
  const char* m_p;
  const char* m_end;
};

}  // namespace

bool parse_int_value_into(std::string_view text, std::size_t* pos, Value* v) {
  IntListReader reader(text, *pos);
  bool ok = reader.value(1, v);
  *pos = reader.pos();
  return ok;
}

bool parse_int_list_items(std::string_view text, std::size_t* pos, Value::List* items) {
  IntListReader reader(text, *pos);
  bool ok = reader.items(1, items);
  *pos = reader.pos();
  return ok;
}

std::optional<Value> parse_int_value_text(std::string_view text) {
  std::size_t pos = 0;
  Value v;
  if (parse_int_value_into(text, &pos, &v) && pos == text.size()) return v;
  return std::nullopt;
}

std::optional<std::vector<std::string_view>> json_array_elements(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  std::size_t b = 0, e = text.size();
  while (b < e && is_space(text[b])) ++b;
  while (e > b && is_space(text[e - 1])) --e;
  if (e - b < 2 || text[b] != '[' || text[e - 1] != ']') return std::nullopt;
  std::vector<std::string_view> out;
  std::size_t depth = 0, start = b + 1;
  bool any = false;  // a non-space byte since `start`
  auto close_element = [&](std::size_t end) {
    std::string_view el = text.substr(start, end - start);
    while (!el.empty() && is_space(el.front())) el.remove_prefix(1);
    while (!el.empty() && is_space(el.back())) el.remove_suffix(1);
    out.push_back(el);
  };
  for (std::size_t i = b + 1; i + 1 < e; ++i) {
    char c = text[i];
    if (c == '"') {
      any = true;
      for (++i; i + 1 < e && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (i + 1 >= e) return std::nullopt;  // unterminated string
    } else if (c == '[' || c == '{') {
      any = true;
      ++depth;
    } else if (c == ']' || c == '}') {
      if (depth == 0) return std::nullopt;
      --depth;
    } else if (c == ',' && depth == 0) {
      if (!any) return std::nullopt;
      close_element(i);
      start = i + 1;
      any = false;
    } else if (!is_space(c)) {
      any = true;
    }
  }
  if (depth != 0) return std::nullopt;
  if (any) close_element(e - 1);
  else if (!out.empty()) return std::nullopt;  // "[1,]"
  return out;
}

Result<Value> parse_value_text(std::string_view text, const std::string& where) {
  if (auto fast = parse_int_value_text(text)) return std::move(*fast);
  FAILMAP_TRY_ASSIGN(auto j, parse_json_strict(text, where));
  return value_from_json(j, where);
}

namespace {

// Where a value sits: the field given to value_from_json, or an element of
// the list at `parent`. Its text ("fixtures[0].args[1][2]") is built only
// for an error, not for every element read.
struct ValuePath {
  const std::string* field = nullptr;  // the root's
  const ValuePath* parent = nullptr;
  std::size_t index = 0;
  std::string text() const { return parent ? parent->text() + "[" + std::to_string(index) + "]" : *field; }
};

Result<Value> value_from_json_at(const Json& j, const ValuePath& at) {
  switch (j.type()) {
    case Json::value_t::null:
      return Value::none();
    case Json::value_t::boolean:
      return Value::boolean(j.get<bool>());
    case Json::value_t::number_integer:
      return Value::integer(j.get<std::int64_t>());
    case Json::value_t::number_unsigned: {
      auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX)) return input_error(at.text() + ": integer exceeds int64");
      return Value::integer(static_cast<std::int64_t>(u));
    }
    case Json::value_t::number_float:
      return Value::floating(j.get<double>());
    case Json::value_t::string:
      return Value::str(j.get<std::string>());
    case Json::value_t::array: {
      if (j.size() > k_max_list_length)
        return input_error(at.text() + ": list longer than " + std::to_string(k_max_list_length));
      Value::List items;
      items.reserve(j.size());
      ValuePath element{nullptr, &at, 0};
      for (const Json& x : j) {
        FAILMAP_TRY_ASSIGN(auto v, value_from_json_at(x, element));
        items.push_back(std::move(v));
        ++element.index;
      }
      return Value::list(std::move(items));
    }
    default:
      return input_error(at.text() + ": expected a number, string, boolean, null or list, got " +
                         std::string(j.type_name()));
  }
}

}  // namespace

Result<Value> value_from_json(const Json& j, const std::string& field) {
  return value_from_json_at(j, ValuePath{&field, nullptr, 0});
}

Json value_to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None:
      return nullptr;
    case Value::Kind::Bool:
      return v.as_bool();
    case Value::Kind::Int:
      return v.as_int();
    case Value::Kind::Float:
      return v.as_float();
    case Value::Kind::Str:
      return v.as_str();
    case Value::Kind::List: {
      Json a = Json::array();
      for (const Value& x : v.as_list()) a.push_back(value_to_json(x));
      return a;
    }
    case Value::Kind::Dict: {
      Json o = Json::object();
      for (const auto& [key, x] : v.as_dict()) o[key] = value_to_json(x);
      return o;
    }
  }
  return nullptr;
}

namespace {

void dump_into(std::string& out, const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      out += std::to_string(j.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned:
      out += std::to_string(j.get<std::uint64_t>());
      return;
    case Json::value_t::number_float:
      append_python_json(out, Value::floating(j.get<double>()));
      return;
    case Json::value_t::string:
      append_python_json_string(out, j.get_ref<const std::string&>());
      return;
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const Json& x : j) {
        if (!first) out.push_back(',');
        first = false;
        dump_into(out, x);
      }
      out.push_back(']');
      return;
    }
    case Json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, x] : j.items()) {
        if (!first) out.push_back(',');
        first = false;
        append_python_json_string(out, k);
        out.push_back(':');
        dump_into(out, x);
      }
      out.push_back('}');
      return;
    }
    default:
      out += "null";
      return;
  }
}

}  // namespace

std::string dump_compact(const Json& j) {
  std::string out;
  dump_into(out, j);
  return out;
}

}  // namespace failmap
