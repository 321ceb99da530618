#include "encoding/file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "encoding/sha256.h"

namespace failmap {

Status check_not_a_folder(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return input_error(path.string() + ": a folder, not a file");
  return Unit{};
}

Status check_regular_file(const std::filesystem::path& path, const std::string& why) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (ec || std::filesystem::is_regular_file(st)) return Unit{};  // opening names a missing file
  namespace fs = std::filesystem;
  const char* kind = fs::is_directory(st)                                 ? "a folder"
                     : fs::is_fifo(st)                                    ? "a pipe"
                     : fs::is_socket(st)                                  ? "a socket"
                     : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
                                                                          : "not a plain file";
  return input_error(path.string() + ": " + kind + ", not a regular file (" + why + ")");
}

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  FAILMAP_TRY(check_not_a_folder(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return input_error(path.string() + ": cannot open: " + std::strerror(errno));
  auto too_large = [&] {
    return input_error(path.string() + ": larger than the " + byte_cap_text(max_bytes) +
                       " limit for a file read whole (" + k_limits_page + ")");
  };
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);  // fails for pipes: the loop below still caps
  if (!ec && size > max_bytes) return too_large();
  std::string text;
  if (!ec) text.reserve(static_cast<std::size_t>(size));
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_bytes - text.size()) return too_large();
    text.append(buf, got);
  }
  if (in.bad()) return input_error(path.string() + ": read error");
  return text;
}

Result<std::string> hash_file(const std::filesystem::path& path) {
  FAILMAP_TRY(check_not_a_folder(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return input_error(path.string() + ": cannot open: " + std::strerror(errno));
  Sha256 h;
  std::string buf(1 << 16, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) return input_error(path.string() + ": read error");
  return h.hex();
}

}  // namespace failmap
