// libFuzzer target: a candidate's report (src/grade/report.h), the bytes a
// graded candidate's own process writes and so may forge at will. Invariants:
// never more calls than were made, `done` only with every call and no error,
// every returned value printable as Python's json.dumps prints it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "encoding/pyjson.h"
#include "grade/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::size_t calls = data[0] % 16;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  failmap::CandidateReport r = failmap::read_report(bytes, calls);
  if (r.calls.size() > calls) __builtin_trap();
  if (r.done && (r.error || r.calls.size() != calls)) __builtin_trap();
  for (const auto& c : r.calls)
    if (c.kind == failmap::CallResult::Kind::Returned) (void)failmap::python_json(c.value);
  return 0;
}
