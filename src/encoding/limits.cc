#include "encoding/limits.h"

#include <cstdio>

namespace failmap {

std::string byte_cap_text(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (std::size_t{1} << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string line_too_long_text(std::size_t max) {
  return "line longer than the " + byte_cap_text(max) + " limit (" + k_limits_page + ")";
}

LineRead read_line_capped(std::istream& in, std::string& line, std::size_t max) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  if (sb == nullptr || !in.good()) return LineRead::End;
  bool any = false;
  bool too_long = false;
  for (;;) {
    int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineRead::End;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (too_long) continue;
    if (line.size() == max) {
      too_long = true;
      std::string().swap(line);  // give the memory back while skipping the rest
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return too_long ? LineRead::TooLong : LineRead::Line;
}

}  // namespace failmap
