// libFuzzer target: the `split --input` listing reader (src/io/listing.h,
// a RapidJSON SAX pass with depth and line caps) and the group-safe
// partition it builds. The input is written to a scratch file because
// read_listing reads files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "io/listing.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // tmpfs: on ext4 rewriting a truncated file forces its blocks out on close
  // (auto_da_alloc), which held these targets to ~10% CPU under /tmp.
  static const std::string path = "/dev/shm/failmap-fuzz-listing-" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  auto l = failmap::read_listing(path, {"group", "tag"});
  if (l && l->lines.size() != l->id_end.size()) __builtin_trap();
  return 0;
}
