// libFuzzer target: a candidate's report (src/grade/report.h), the bytes a
// graded candidate's own process writes and so may forge at will. Invariants:
// never more calls than were made, `done` only with every call and no error,
// every returned value printable as Python's json.dumps prints it, the same
// text whether written from the report's bytes or from the value built, and
// equal to itself when its element count says it may be.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "encoding/pyjson.h"
#include "grade/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::size_t calls = data[0] % 16;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  failmap::CandidateReport r = failmap::read_report(std::string(bytes), calls);
  if (r.calls.size() > calls) __builtin_trap();
  if (r.done && (r.error || r.calls.size() != calls)) __builtin_trap();
  for (std::size_t i = 0; i < r.calls.size(); ++i) {
    if (r.calls[i].kind != failmap::CallResult::Kind::Returned) continue;
    failmap::Value v = r.returned(i);
    std::string streamed;
    r.append_returned_json(streamed, i);
    if (streamed != failmap::python_json(v)) __builtin_trap();
    if (r.calls[i].encoded->elements != failmap::value_elements(v)) __builtin_trap();
    if (!r.returned_equals(i, v) && failmap::python_equal(v, v)) __builtin_trap();
  }
  return 0;
}
