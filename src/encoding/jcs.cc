#include "encoding/jcs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <vector>

#include "encoding/text.h"

namespace failmap {
namespace {

// Decodes one UTF-8 sequence at s[i] (valid input) and advances i.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  std::uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
  for (int k = 1; k < len && i + static_cast<std::size_t>(k) < s.size(); ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3Fu);
  i += static_cast<std::size_t>(len);
  return cp;
}

// The first UTF-16 code unit of a code point: the high surrogate for
// supplementary characters. Comparing sequences of these, then the second
// unit, orders strings by UTF-16 code units.
std::uint32_t utf16_key(std::uint32_t cp) { return cp < 0x10000 ? cp : 0xD800 + ((cp - 0x10000) >> 10); }

struct Path {
  const Path* parent;
  std::string_view key;  // member name, or empty with index >= 0
  long index;
};

std::string path_text(const Path* p) {
  std::vector<const Path*> chain;
  for (; p; p = p->parent) chain.push_back(p);
  std::string out = "$";
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->index >= 0) out += "[" + std::to_string((*it)->index) + "]";
    else if ((*it)->parent || !(*it)->key.empty()) out += "." + std::string((*it)->key);
  }
  return out;
}

Status refuse(const Path* p, const std::string& what) { return input_error(path_text(p) + ": " + what); }

Status append_integer(std::string& out, std::int64_t v, const Path* p) {
  if (v > k_jcs_max_exact_integer || v < -k_jcs_max_exact_integer)
    return refuse(p, "integer " + std::to_string(v) +
                         " is outside ±2^53 and has no exact I-JSON (double) form; RFC 8785 cannot canonicalize it");
  out += std::to_string(v);
  return ok_status();
}

Status append_value(std::string& out, const Json& j, const Path* p) {
  switch (j.type()) {
    case Json::value_t::null:
      out += "null";
      return ok_status();
    case Json::value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      return ok_status();
    case Json::value_t::number_integer:
      return append_integer(out, j.get<std::int64_t>(), p);
    case Json::value_t::number_unsigned: {
      auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(k_jcs_max_exact_integer))
        return refuse(p,
                      "integer " + std::to_string(u) +
                          " is outside ±2^53 and has no exact I-JSON (double) form; RFC 8785 cannot canonicalize it");
      out += std::to_string(u);
      return ok_status();
    }
    case Json::value_t::number_float: {
      double d = j.get<double>();
      if (!std::isfinite(d)) return refuse(p, "NaN and infinities have no JSON form");
      out += ecmascript_number(d);
      return ok_status();
    }
    case Json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      if (!valid_utf8(s)) return refuse(p, "invalid UTF-8");
      append_canonical_string(out, s);
      return ok_status();
    }
    case Json::value_t::array: {
      out.push_back('[');
      long i = 0;
      for (const Json& x : j) {
        if (i) out.push_back(',');
        Path child{p, {}, i++};
        FAILMAP_TRY(append_value(out, x, &child));
      }
      out.push_back(']');
      return ok_status();
    }
    case Json::value_t::object: {
      std::vector<std::pair<const std::string*, const Json*>> members;
      members.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!valid_utf8(it.key())) return refuse(p, "invalid UTF-8 in a member name");
        members.emplace_back(&it.key(), &it.value());
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return utf16_less(*a.first, *b.first); });
      out.push_back('{');
      bool first = true;
      for (const auto& [k, v] : members) {
        if (!first) out.push_back(',');
        first = false;
        append_canonical_string(out, *k);
        out.push_back(':');
        Path child{p, *k, -1};
        FAILMAP_TRY(append_value(out, *v, &child));
      }
      out.push_back('}');
      return ok_status();
    }
    default:
      return refuse(p, std::string("a ") + j.type_name() + " value has no JSON form");
  }
}

}  // namespace

std::string ecmascript_number(double d) {
  if (d == 0) return "0";  // also -0 (ECMA-262: "If x is -0, return "0"")
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));  // [-]d[.ddd]e(+|-)XX, shortest round trip
  std::string out;
  if (s.front() == '-') {
    out.push_back('-');
    s.remove_prefix(1);
  }
  std::size_t e = s.find('e');
  std::string digits(1, s[0]);
  if (e > 1) digits.append(s.substr(2, e - 2));
  int exponent = std::atoi(std::string(s.substr(e + 1)).c_str());
  int k = static_cast<int>(digits.size());
  int n = exponent + 1;  // ECMA-262's n: the value is 0.digits × 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(n - 1 < 0 ? '-' : '+');
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

bool utf16_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    std::uint32_t ca = next_code_point(a, i), cb = next_code_point(b, j);
    if (ca == cb) continue;
    std::uint32_t ka = utf16_key(ca), kb = utf16_key(cb);
    if (ka != kb) return ka < kb;
    return ca < cb;  // same high surrogate: the low surrogates order as the code points
  }
  return i == a.size() && j < b.size();  // a proper prefix sorts first
}

namespace {

// True when one of the 8 bytes of `x` is below 0x20, '"' or '\\': the bytes
// a string literal escapes. SWAR (bit tricks on one 64-bit word): a byte
// "is zero" test of x, x ^ '"' and x ^ '\\' and a "less than 0x20" test;
// neither misses a byte (they may flag more, which only costs the byte loop).
bool has_escapable_byte(std::uint64_t x) {
  constexpr std::uint64_t k_ones = 0x0101010101010101ULL, k_highs = 0x8080808080808080ULL;
  auto zero_byte = [](std::uint64_t v) { return (v - k_ones) & ~v & k_highs; };
  return (((x - k_ones * 0x20) & ~x & k_highs) | zero_byte(x ^ (k_ones * '"')) | zero_byte(x ^ (k_ones * '\\'))) != 0;
}

}  // namespace

void append_canonical_string(std::string& out, std::string_view s) {
  static const char* k_hex = "0123456789abcdef";
  out.push_back('"');
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  std::size_t i = 0;
  while (i < s.size()) {
    // Sixteen, else eight, plain bytes at a time (prose is long and rarely escaped).
#if defined(__SSE2__)
    if (i + 16 <= s.size()) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
      __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);  // unsigned v <= 0x1f
      __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
      __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
      if (_mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) == 0) {
        i += 16;
        continue;
      }
    }
#endif
    if (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (!has_escapable_byte(word)) {
        i += 8;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(s[i++]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s, plain, i - 1 - plain);
    plain = i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += "\\u00";
        out.push_back(k_hex[c >> 4]);
        out.push_back(k_hex[c & 15]);
    }
  }
  out.append(s, plain, s.size() - plain);
  out.push_back('"');
}

Status append_canonical_json(std::string& out, const Json& j) { return append_value(out, j, nullptr); }

Result<std::string> canonical_json(const Json& j) {
  std::string out;
  FAILMAP_TRY(append_canonical_json(out, j));
  return out;
}

}  // namespace failmap
