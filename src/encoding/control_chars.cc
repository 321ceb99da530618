#include "encoding/control_chars.h"

#include "encoding/text.h"

namespace failmap {

std::string escape_control_characters(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  constexpr char k_hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && !(keep_newlines && c == '\n')) || c == 0x7f) {
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      auto c1 = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += k_hex[c1 >> 4];
      out += k_hex[c1 & 15];
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (std::size_t len = utf8_char_length(text, i); len == 0) {  // no character: its byte shown
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    } else if (text.substr(i, len) == k_utf8_bom) {  // invisible: shown
      out += "\\ufeff";
      i += len - 1;
    } else if (len == 3 && c == 0xe2 &&
               ((text[i + 1] == '\x80' && static_cast<unsigned char>(text[i + 2]) >= 0xaa &&
                 static_cast<unsigned char>(text[i + 2]) <= 0xae) ||
                (text[i + 1] == '\x81' && static_cast<unsigned char>(text[i + 2]) >= 0xa6 &&
                 static_cast<unsigned char>(text[i + 2]) <= 0xa9))) {
      // A bidirectional embedding, override or isolate (U+202A-U+202E,
      // U+2066-U+2069) would reorder the text around it: shown.
      unsigned cp = 0x2000u | ((static_cast<unsigned char>(text[i + 1]) & 0x3fu) << 6) |
                    (static_cast<unsigned char>(text[i + 2]) & 0x3fu);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(cp >> shift) & 15];
      i += len - 1;
    } else {
      out.append(text.substr(i, len));
      i += len - 1;
    }
  }
  return out;
}

}  // namespace failmap
