// Replays inputs through the libFuzzer targets of bench/fuzz/ without
// libFuzzer or clang: every fuzz_NAME.cc is compiled with its entry point
// renamed to failmap_fuzz_NAME (CMakeLists.txt), and this main() feeds it each
// file given, folders read recursively in name order. A target checks its
// properties with abort or trap, so a broken property ends the replay with a
// signal and the ctest test fails. The test suite replays the seed and crash
// inputs of tests/data/fuzz/NAME/ this way in every pass (the sanitizer pass
// included).
//   failmap_fuzz_replay TARGET PATH...   exit 0: every input replayed
//                                        exit 2: unknown target or unreadable path
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: failmap_fuzz_replay TARGET PATH...\n");
    return 2;
  }
  const FuzzTarget* target = nullptr;
  for (const FuzzTarget& t : k_fuzz_targets)
    if (std::string_view(argv[1]) == t.name) target = &t;
  if (!target) {
    std::fprintf(stderr, "failmap_fuzz_replay: no target '%s'\n", argv[1]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(argv[i], ec)) {
      files.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "failmap_fuzz_replay: %s: not a file or folder\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "failmap_fuzz_replay: %s: cannot read\n", f.c_str());
      return 2;
    }
    std::fprintf(stderr, "%s %s (%zu bytes)\n", target->name, f.c_str(), bytes.size());
    target->run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs replayed\n", target->name, files.size());
  return 0;
}
