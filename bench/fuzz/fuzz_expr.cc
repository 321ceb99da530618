// libFuzzer target: the fixture-expression evaluator (src/core/expr.h) on
// arbitrary text with N bound to a small integer. Must never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/expr.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  failmap::Bindings b{{"N", failmap::Value::integer(3)}};
  (void)failmap::evaluate_expression(text, b);
  (void)failmap::evaluate_arguments(text, b);
  return 0;
}
