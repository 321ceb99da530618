#include "io/control_chars.h"

#include "io/text.h"

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
    } else {
      out.append(text.substr(i, len));
      i += len - 1;
    }
  }
  return out;
}

}  // namespace failmap
