// libFuzzer target: the JSON Lines record reader (src/io/bundle.h read_jsonl,
// with the bounded line reader of src/encoding/limits.h) feeding every record kind
// a bundle holds: case, run and mechanism records. The input is written to a
// scratch file because read_jsonl reads files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "encoding/jsonl.h"
#include "encoding/limits.h"
#include "io/bundle.h"
#include "io/case_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // tmpfs: on ext4 rewriting a truncated file forces its blocks out on close
  // (auto_da_alloc), which held these targets to ~10% CPU under /tmp.
  static const std::string path = "/dev/shm/failmap-fuzz-jsonl-" + std::to_string(::getpid()) + ".jsonl";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  std::vector<std::string> errors;
  failmap::read_jsonl(
      path,
      [&](std::uint64_t, failmap::Json&& j) {
        failmap::Case c;
        (void)failmap::case_from_json(j, "fuzz", &c, &errors);
        failmap::RunRecord r;
        (void)failmap::run_from_record(j, "fuzz", 0, &r, &errors);
        (void)failmap::check_mechanism_record(j, failmap::Tier::Open, "fuzz", 0, &errors);
        (void)failmap::check_mechanism_record(j, failmap::Tier::Member, "fuzz", 0, &errors);
      },
      &errors);
  // The bounded line reader with a tiny cap, so over-long lines are common.
  std::istringstream in{std::string(text)};
  std::string line;
  std::size_t total = 0;
  for (failmap::LineRead got; (got = failmap::read_line_capped(in, line, 8)) != failmap::LineRead::End;) {
    if (line.size() > 8) __builtin_trap();
    total += line.size() + 1;
  }
  if (total > size + 1) __builtin_trap();
  return 0;
}
