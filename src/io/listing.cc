#include "io/listing.h"

#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "encoding/json.h"
#include "encoding/json_syntax.h"
#include "encoding/limits.h"
#include "encoding/pyjson.h"
#include "encoding/text.h"

namespace failmap {
namespace {

// SAX handler for one line. Depth 1 is the item object; only `id` and the
// group fields are looked at, other fields are parsed (for strictness) and
// dropped.
class LineHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, LineHandler> {
 public:
  LineHandler(const std::vector<std::string>& fields, UnitBuilder& units) : m_fields(fields), m_units(units) {}

  /// The line's in situ stream: numbers refused are quoted from it.
  void start(std::uint32_t item, const rapidjson::InsituStringStream* stream) {
    m_stream = stream;
    m_item = item;
    m_depth = 0;
    m_role = Role::Other;
    m_keys.clear();
    m_id.clear();
    m_has_id = false;
    m_links = 0;
    m_problem.clear();
  }

  bool StartObject() {
    if (m_depth >= k_max_json_depth) return too_deep();
    if (m_depth == 0) {
      ++m_depth;
      return true;
    }
    if (m_role != Role::Other) return refuse("an object");
    ++m_depth;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    if (!valid_utf8(std::string_view(s, len)))
      return fail("a member name with a \\u escape of a lone or unpaired UTF-16 surrogate (no character)");
    if (m_depth != 1) return true;
    std::string_view key(s, len);
    if (std::find(m_keys.begin(), m_keys.end(), key) != m_keys.end())
      return fail("duplicate key \"" + std::string(key) + "\"");
    m_keys.emplace_back(key);
    m_field = -1;
    if (key == "id") m_role = Role::Id;
    else {
      auto it = std::find(m_fields.begin(), m_fields.end(), key);
      m_role = it == m_fields.end() ? Role::Other : Role::Group;
      m_field = static_cast<int>(it - m_fields.begin());
    }
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    --m_depth;
    if (m_depth == 1) m_role = Role::Other;  // a nested object ended
    return true;
  }
  bool StartArray() {
    if (m_depth >= k_max_json_depth) return too_deep();
    if (m_depth == 0) return fail("expected an object, got an array");
    if (m_depth == 1 && m_role == Role::Group) {
      m_in_group_array = true;
      ++m_depth;
      return true;
    }
    if (m_role != Role::Other) return refuse(m_in_group_array ? "an array within its array" : "an array");
    ++m_depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --m_depth;
    m_in_group_array = false;
    return true;
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    if (!valid_utf8(std::string_view(s, len))) return lone_surrogate();
    if (!value_here()) return m_depth == 0 ? fail("expected an object") : true;
    m_scratch.clear();
    append_python_json_string(m_scratch, std::string_view(s, len));
    return take(m_scratch);
  }
  bool Int(int i) { return integer(i); }
  bool Uint(unsigned u) { return integer(u); }
  bool Int64(std::int64_t i) { return integer(i); }
  bool Uint64(std::uint64_t u) {
    if (u > static_cast<std::uint64_t>(INT64_MAX))
      return value_here() ? refuse((number_text() + ", an integer beyond int64").c_str()) : true;
    return integer(static_cast<std::int64_t>(u));
  }
  // RapidJSON also gives an integer beyond 2^64 as a double.
  bool Double(double) {
    if (!value_here()) return m_depth == 0 ? fail("expected an object") : true;
    std::string text = number_text();
    bool integral = text.find_first_of(".eE") == std::string::npos;
    return refuse((integral ? text + ", an integer beyond int64" : "the float " + text).c_str());
  }
  bool Bool(bool) { return value_here() ? refuse("a boolean") : (m_depth == 0 ? fail("expected an object") : true); }
  bool Null() {
    if (m_depth == 0) return fail("expected an object");
    if (m_role == Role::Id && m_depth == 1) return refuse("null");
    return true;  // a null group value is "no value"; elsewhere ignored
  }
  // Anything the base handler routes to Default() (RawNumber) is unused.

  const std::string& problem() const { return m_problem; }
  /// "field 'NAME': " for the item's member whose value was being read
  /// when parsing stopped (its last key; only for errors no key can
  /// cause, such as a number's), "" before the first key.
  std::string member_words() const {
    return m_depth >= 1 && !m_keys.empty() ? "field '" + std::string(m_keys.back()) + "': " : "";
  }
  bool has_id() const { return m_has_id; }
  std::string& id() { return m_id; }
  int links() const { return m_links; }

 private:
  enum class Role { Other, Id, Group };

  // True when the scalar at hand is the id or a group value.
  bool value_here() const {
    if (m_role == Role::Id) return m_depth == 1;
    if (m_role == Role::Group) return m_depth == 1 || (m_depth == 2 && m_in_group_array);
    return false;
  }
  bool integer(std::int64_t v) {
    if (!value_here()) return m_depth == 0 ? fail("expected an object") : true;
    m_scratch = std::to_string(v);
    return take(m_scratch);
  }
  bool take(const std::string& spelling) {
    if (m_role == Role::Id) {
      m_id = spelling;
      m_has_id = true;
      return true;
    }
    m_link.assign(m_fields[static_cast<std::size_t>(m_field)]);
    m_link.push_back('=');
    m_link += spelling;
    m_units.link(m_item, m_link);
    ++m_links;
    return true;
  }
  // RapidJSON 1.1 decodes a lone low surrogate escape ("\udc00") into the
  // bytes ED B0 80, which are not UTF-8 (it refuses a lone high one): the
  // only way a string it read in situ from valid UTF-8 can be invalid.
  bool lone_surrogate() {
    return fail(member_words() + "a \\u escape of a lone or unpaired UTF-16 surrogate (no character)");
  }
  bool too_deep() {
    return fail("nesting deeper than " + std::to_string(k_max_json_depth) + " (" + std::string(k_limits_page) + ")");
  }
  // The number being read: RapidJSON's ParseNumber reads a local copy of
  // the stream and moves the stream past the number only after the handler
  // returns, so the stream stands at the number's first character.
  std::string number_text() const {
    std::string_view rest(m_stream->src_);
    std::string text(rest.substr(0, rest.find_first_not_of("0123456789+-.eE")));
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
  }
  bool refuse(const char* what) {
    std::string field = m_role == Role::Id ? "id" : m_fields[static_cast<std::size_t>(m_field)];
    return fail("field '" + field + "' holds " + what + "; expected a string or an integer" +
                (m_role == Role::Group ? " (or an array of them, or null)" : ""));
  }
  bool fail(std::string what) {
    if (m_problem.empty()) m_problem = std::move(what);
    return false;
  }

  const std::vector<std::string>& m_fields;
  UnitBuilder& m_units;
  std::uint32_t m_item = 0;
  const rapidjson::InsituStringStream* m_stream = nullptr;
  int m_depth = 0;
  Role m_role = Role::Other;
  int m_field = -1;
  bool m_in_group_array = false;
  std::vector<std::string> m_keys;
  std::string m_id, m_scratch, m_link, m_problem;
  bool m_has_id = false;
  int m_links = 0;
};

// What a listing line holds at byte `at`, as a syntax error names it
// (describe_json_found, encoding/json_syntax.h).
std::string found_at(std::string_view line, std::size_t at, std::size_t width = 20) {
  at = std::min(at, line.size());
  if (at > 0 && line[at - 1] == '-' && line.substr(at).starts_with("Infinity")) --at;  // where RapidJSON stops
  return describe_json_found(line, at, width);
}

// A RapidJSON syntax error of a listing line, in failmap's words, with what
// was found at `offset` (RapidJSON's own, e.g. "Invalid value.", say neither).
std::string syntax_words(rapidjson::ParseErrorCode code, std::string_view line, std::size_t offset) {
  const std::string found = found_at(line, offset);
  switch (code) {
    case rapidjson::kParseErrorDocumentRootNotSingular:
      return "text after the line's JSON object (one object per line): found " + found;
    case rapidjson::kParseErrorStringUnicodeSurrogateInvalid:
      return "a \\u escape of a lone or unpaired UTF-16 surrogate (no character)";
    case rapidjson::kParseErrorStringInvalidEncoding:
      return "a string that is not valid UTF-8";
    case rapidjson::kParseErrorValueInvalid:
      return "expected a JSON value, found " + found;
    case rapidjson::kParseErrorObjectMissName:
      return "expected a member name in double quotes, found " + found;
    case rapidjson::kParseErrorObjectMissColon:
      return "expected ':' after the member name, found " + found;
    case rapidjson::kParseErrorObjectMissCommaOrCurlyBracket:
      return "expected ',' or '}' after a member, found " + found;
    case rapidjson::kParseErrorArrayMissCommaOrSquareBracket:
      return "expected ',' or ']' after an element, found " + found;
    case rapidjson::kParseErrorStringUnicodeEscapeInvalidHex:
      return "a \\u escape without four hex digits, found " + found_at(line, offset, 6);
    case rapidjson::kParseErrorStringEscapeInvalid:
      return "an escape JSON does not have, found " + found_at(line, offset, 2);
    case rapidjson::kParseErrorNumberMissFraction:
      return "a number without digits after its '.', found " + found;
    case rapidjson::kParseErrorNumberMissExponent:
      return "a number without digits in its exponent, found " + found;
    default:
      return "not JSON here, found " + found;
  }
}

// The listing's text without its final line when that one is empty (the file
// ends in a blank line, "\n\n" or "\r\n\r\n"): ignored, as a bundle's
// (schema/BUNDLE.md "Reading rules"); any other empty line is refused.
std::string_view without_final_empty_line(std::string_view all) {
  if (!all.ends_with('\n')) return all;
  std::string_view body = all.substr(0, all.size() - 1);
  std::size_t start = body.rfind('\n');
  start = start == std::string_view::npos ? 0 : start + 1;
  std::string_view last = body.substr(start);
  return last.empty() || last == "\r" ? all.substr(0, start) : all;
}

// Sorting (hash, item) pairs finds equal ids without a million-entry hash
// set; the line reported is the earliest repeat, whatever the hash function.
Status refuse_duplicate_ids(const Listing& l, const std::string& where) {
  std::vector<std::pair<std::size_t, std::uint32_t>> hashed(l.id_end.size());
  for (std::uint32_t i = 0; i < hashed.size(); ++i) hashed[i] = {std::hash<std::string_view>{}(l.id(i)), i};
  std::sort(hashed.begin(), hashed.end());
  std::uint32_t repeat = UINT32_MAX, original = 0;
  for (std::size_t a = 0; a < hashed.size();) {
    std::size_t b = a + 1;
    while (b < hashed.size() && hashed[b].first == hashed[a].first) ++b;
    for (std::size_t x = a; x < b; ++x)
      for (std::size_t y = x + 1; y < b; ++y)  // items ascend within a run
        if (hashed[y].second < repeat && l.id(hashed[x].second) == l.id(hashed[y].second)) {
          repeat = hashed[y].second;
          original = hashed[x].second;
        }
    a = b;
  }
  if (repeat == UINT32_MAX) return ok_status();
  return input_error(where + ":" + std::to_string(repeat + 1) + ": duplicate id " + std::string(l.id(repeat)) +
                     " (first on line " + std::to_string(original + 1) + ")");
}

// Reads a listing whole, checking while it reads what must not wait for the
// end of the stream: a NUL byte, a line over k_max_line_bytes (one more for a
// CRLF's '\r'; the parse loop checks the exact cap), more than
// k_max_listing_lines lines. Errors: "PATH:LINE: what".
Result<std::string> read_listing_text(const std::filesystem::path& path, const std::string& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return input_error(where + ": cannot open: " + std::strerror(errno));
  std::string text;
  std::error_code ec;
  if (auto size = std::filesystem::file_size(path, ec); !ec) text.reserve(static_cast<std::size_t>(size));
  std::size_t line = 1, line_start = 0;
  std::vector<char> buf(std::size_t{1} << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    auto got = static_cast<std::size_t>(in.gcount());
    std::size_t pos = text.size();
    text.append(buf.data(), got);
    const char* nul = static_cast<const char*>(std::memchr(text.data() + pos, '\0', got));
    std::size_t scan_end = nul ? static_cast<std::size_t>(nul - text.data()) : text.size();
    for (;;) {
      const void* nl = std::memchr(text.data() + pos, '\n', scan_end - pos);
      if (!nl) break;
      std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
      if (at - line_start > k_max_line_bytes + 1) break;  // too long: reported below
      line_start = pos = at + 1;
      if (line++ > k_max_listing_lines)  // `line` complete lines so far
        return input_error(where + ": more than " + std::to_string(k_max_listing_lines) +
                           " lines, the cap for a listing (" + k_limits_page + ")");
    }
    if (scan_end - line_start > k_max_line_bytes + 1)
      return input_error(where + ":" + std::to_string(line) + ": " + line_too_long_text());
    if (nul) return input_error(where + ":" + std::to_string(line) + ": NUL byte");
  }
  if (in.bad()) return input_error(where + ": read error");
  return text;
}

}  // namespace

Result<Listing> read_listing(const std::filesystem::path& path, const std::vector<std::string>& group_fields) {
  const std::string where = path.string();
  if (group_fields.empty()) return input_error("--input needs at least one --group-field");
  for (std::size_t i = 0; i < group_fields.size(); ++i) {
    if (group_fields[i] == "id") return input_error("--group-field id: the id cannot be a group field");
    for (std::size_t j = 0; j < i; ++j)
      if (group_fields[j] == group_fields[i]) return input_error("--group-field " + group_fields[i] + " given twice");
  }
  if (std::error_code ec; std::filesystem::is_directory(path, ec))  // opens, then fails to read as "read error"
    return input_error(where + ": a folder, not a listing (--input names one JSON Lines file)");
  FAILMAP_TRY_ASSIGN(auto text, read_listing_text(path, where));
  Listing l;
  l.text = std::move(text);
  FAILMAP_TRY_ASSIGN(auto body, skip_file_bom(l.text, where));
  std::string_view all = without_final_empty_line(body);
  if (const void* nul = std::memchr(all.data(), '\0', all.size())) {
    auto line = 1 + std::count(all.data(), static_cast<const char*>(nul), '\n');
    return input_error(where + ":" + std::to_string(line) + ": NUL byte");
  }
  std::size_t count = static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n'));
  if (!all.empty() && all.back() != '\n') ++count;
  if (count > k_max_listing_lines)
    return input_error(where + ": more than " + std::to_string(k_max_listing_lines) +
                       " lines, the cap for a listing (" + k_limits_page + ")");
  l.lines.reserve(count);
  l.id_end.reserve(count);

  UnitBuilder units(static_cast<std::uint32_t>(count));
  LineHandler handler(group_fields, units);
  // Each line is parsed in situ from a NUL-terminated copy (`scratch`), so
  // the Reader never uses its internal string stack. RapidJSON 1.1 (Debian's)
  // grows that stack lazily and its first Push computes `nullptr + n`
  // (internal/stack.h:117, undefined behaviour that UBSan reports; fixed
  // upstream in Tencent/rapidjson 16872af, not in any release). In situ
  // parsing hands strings to the handler as views into `scratch` instead of
  // copying them onto the stack, and default number parsing never uses it;
  // the listing text itself stays intact for l.lines.
  rapidjson::Reader reader;
  std::string scratch;
  std::size_t pos = 0;
  for (std::uint32_t item = 0; item < count; ++item) {
    std::size_t end = all.find('\n', pos);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string at = where + ":" + std::to_string(item + 1) + ": ";
    if (line.size() > k_max_line_bytes) return input_error(at + line_too_long_text());
    if (line.starts_with(k_utf8_bom)) return input_error(at + std::string(k_bom_refused));
    if (line.find_first_not_of(" \t") == std::string_view::npos) return input_error(at + "blank line");

    // NUL-terminated: the end of the in situ stream (NUL bytes were refused
    // above). Three more NULs: RapidJSON's UTF-8 validation takes a lead
    // byte's continuation bytes without looking for the end, so a line ending
    // in a lead byte would read up to 3 bytes past the terminator
    // (heap-buffer-overflow found by fuzz_listing).
    scratch.assign(line);
    scratch.append(3, '\0');
    rapidjson::InsituStringStream stream(scratch.data());
    handler.start(item, &stream);
    rapidjson::ParseResult ok =
        reader.Parse<rapidjson::kParseInsituFlag | rapidjson::kParseValidateEncodingFlag>(stream, handler);
    if (!ok) {
      if (!handler.problem().empty()) return input_error(at + handler.problem());
      const std::string column = "column " + std::to_string(ok.Offset() + 1) + ": ";
      // RapidJSON names a raw control character in a string an invalid escape.
      if (ok.Code() == rapidjson::kParseErrorStringEscapeInvalid && ok.Offset() < line.size() &&
          static_cast<unsigned char>(line[ok.Offset()]) < 0x20) {
        const unsigned byte = static_cast<unsigned char>(line[ok.Offset()]);
        char upper[8], lower[8];
        std::snprintf(upper, sizeof upper, "%04X", byte);
        std::snprintf(lower, sizeof lower, "%04x", byte);
        return input_error(at + column + "a raw control character (U+" + upper +
                           ") in a string; JSON requires it escaped, as \\u" + lower);
      }
      if (ok.Code() == rapidjson::kParseErrorNumberTooBig)
        return input_error(at + column + handler.member_words() +
                           "a number beyond the range of a double (about 1.8e308)");
      if (ok.Offset() >= line.size())
        return input_error(at + column + "the line ends inside its JSON value (cut short?)");
      // A misspelt literal ("tru"): RapidJSON stops after its letters;
      // the error names the word from its start.
      std::size_t offset = ok.Offset();
      if (ok.Code() == rapidjson::kParseErrorValueInvalid)
        while (offset > 0 && std::isalnum(static_cast<unsigned char>(line[offset - 1]))) --offset;
      return input_error(at + "column " + std::to_string(offset + 1) + ": " + syntax_words(ok.Code(), line, offset));
    }
    if (!handler.has_id()) return input_error(at + "no \"id\" field");
    if (handler.links() == 0) {
      std::string names;
      for (const std::string& f : group_fields) names += (names.empty() ? "" : ", ") + f;
      return input_error(at + "no value in any group field (" + names + ")");
    }
    l.id_text += handler.id();
    l.id_end.push_back(l.id_text.size());
    l.lines.push_back(line);
    pos = end + 1;
  }
  FAILMAP_TRY(refuse_duplicate_ids(l, where));
  auto p = std::move(units).build();
  if (!p) return input_error(where + ": " + p.error().message);
  l.partition = std::move(*p);
  return l;
}

}  // namespace failmap
