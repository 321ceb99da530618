#include "encoding/text.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "encoding/pyjson.h"

namespace failmap {

std::string_view strip_bom(std::string_view text) {
  if (text.starts_with(k_utf8_bom)) text.remove_prefix(k_utf8_bom.size());
  return text;
}

std::pair<std::size_t, std::size_t> text_line_col(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

Result<std::string_view> skip_file_bom(std::string_view text, const std::string& where) {
  if (!text.starts_with(k_utf8_bom)) return text;
  text.remove_prefix(k_utf8_bom.size());
  if (text.starts_with(k_utf8_bom)) return input_error(where + ":1: " + std::string(k_second_bom));
  return text;
}

std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t len;
  std::uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

std::string quote_excerpt(std::string_view s, std::size_t max_bytes, std::size_t from) {
  from = std::min(from, s.size());
  while (from > 0 && from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) --from;
  std::string out = from ? "...\"" : "\"";
  constexpr char k_hex[] = "0123456789abcdef";
  std::size_t i = from;
  while (i < s.size()) {
    std::size_t len = utf8_char_length(s, i);
    if (i - from + std::max<std::size_t>(len, 1) > max_bytes) break;
    if (len == 0) {  // a byte that is no character: shown, never passed on
      auto b = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += k_hex[b >> 4];
      out += k_hex[b & 15];
      ++i;
    } else if (s.substr(i, len) == k_utf8_bom) {
      out += "\\ufeff";
      i += len;
    } else {
      // One character, escaped as json.dumps(ensure_ascii=False) writes it.
      std::string quoted;
      append_python_json_string(quoted, s.substr(i, len));
      out.append(quoted, 1, quoted.size() - 2);
      i += len;
    }
  }
  out += '"';
  if (i < s.size()) out += "...";
  return out;
}

std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0, n = s.size();
  while (i < n) {
    // Sixteen, else eight, ASCII bytes at a time (no high bit set).
#if defined(__SSE2__)
    if (i + 16 <= n && _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i))) == 0) {
      i += 16;
      continue;
    }
#endif
    if (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else return i;
    if (i + static_cast<std::size_t>(len) > n) return i;
    for (int k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += static_cast<std::size_t>(len);
  }
  return std::string_view::npos;
}

bool valid_utf8(std::string_view s) { return first_invalid_utf8(s) == std::string_view::npos; }

}  // namespace failmap
