// libFuzzer target: the fixture-expression evaluator (src/core/expr.h) on
// arbitrary text with N bound to a small integer. Must never crash or hang,
// and a CompiledExpression of the text must give exactly what the direct
// evaluator gives (the same Value, or the same error message), at two
// bindings of the one parse.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "core/expr.h"

namespace {

template <class T>
void same_or_abort(const failmap::Result<T>& compiled, const failmap::Result<T>& direct) {
  if (compiled.ok() != direct.ok()) std::abort();
  if (!direct.ok()) {
    if (compiled.error().message != direct.error().message) std::abort();
    return;
  }
  if constexpr (std::is_same_v<T, failmap::Value>) {
    if (!compiled->identical(*direct)) std::abort();
  } else {
    if (!failmap::Value::list(*compiled).identical(failmap::Value::list(*direct))) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  failmap::CompiledExpression expression(text, failmap::CompiledExpression::Shape::Expression);
  failmap::CompiledExpression arguments(text, failmap::CompiledExpression::Shape::Arguments);
  for (std::int64_t n : {3, -7}) {
    failmap::Bindings b{{"N", failmap::Value::integer(n)}};
    same_or_abort(expression.evaluate(b), failmap::evaluate_expression(text, b));
    same_or_abort(arguments.evaluate_arguments(b), failmap::evaluate_arguments(text, b));
  }
  return 0;
}
