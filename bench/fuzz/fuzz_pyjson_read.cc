// libFuzzer target: parse_python_json (src/encoding/pyjson.h), the reader of the
// observation documents in results lines that `grade merge` judges again —
// a shard folder is untrusted input. Invariants: never crashes or hangs on
// any bytes; a text it accepts gives a value whose json.dumps spelling
// (python_json) it reads back to the same spelling (NaN, dict order,
// -0.0, escapes all kept).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "encoding/pyjson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = failmap::parse_python_json(text, "fuzz");
  if (!v) return 0;
  std::string spelled = failmap::python_json(*v);
  auto back = failmap::parse_python_json(spelled, "fuzz (again)");
  if (!back || failmap::python_json(*back) != spelled) __builtin_trap();
  return 0;
}
