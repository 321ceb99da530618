// A small, safe evaluator for the Python expression subset used by fixture
// templates on published pages (`N = 1`, `check('x',solve([N,N,1],2*N),2*N+1)`):
//
//   int literals (decimal, no leading zeros), float literals (Python syntax,
//   parsed correctly rounded), True/False/None, names bound by the case's
//   parameter binding, list displays [a, b, ...], parentheses, unary - and +,
//   and the binary operators + - * / // % with Python precedence and
//   semantics (src/core/value.h). Nothing else: no calls, no attributes, no
//   strings, no comprehensions. Python is never run.
//
// CompiledExpression parses a text once for evaluation at many bindings.
//
// Untrusted-input caps: expression text of at most 1 MiB, nesting depth 64,
// lists of at most k_max_list_length (1,000,000) elements, and at most
// k_max_value_elements (4,000,000) in all, nested lists' elements included,
// in any value built and in one argument list (core/value.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/value.h"

namespace failmap {

/// Parameter binding: name -> value, in binding order (e.g. {{"N", 1}}).
using Bindings = std::vector<std::pair<std::string, Value>>;

/// Evaluates one expression. Errors name the column (1-based) and what was
/// expected, e.g. "column 5: expected ']' or ','"; unknown names, overflow
/// and division by zero are Errors too.
Result<Value> evaluate_expression(std::string_view text, const Bindings& bindings);

/// Evaluates a comma-separated argument list as in `solve(ARGS)`; an empty
/// text gives no arguments.
Result<std::vector<Value>> evaluate_arguments(std::string_view text, const Bindings& bindings);

inline constexpr std::size_t k_max_expression_bytes = 1 << 20;
inline constexpr int k_max_expression_depth = 64;

/// An expression or argument list parsed once and evaluated at many
/// bindings (a mechanism's fixture templates, evaluated for every case).
/// Evaluating it gives exactly what evaluate_expression (Shape::Expression)
/// or evaluate_arguments (Shape::Arguments) of its text gives at the same
/// binding: the same Value, or the same Error at the same column. The parse
/// keeps the operations in the order the direct evaluator performs them, so
/// the first error is the same one; a text that does not parse is kept as
/// text and evaluated afresh each time (the direct evaluator may stop at an
/// evaluation error before it reaches the syntax error).
class CompiledExpression {
 public:
  /// Which of the two evaluators the text is for.
  enum class Shape { Expression, Arguments };
  /// Parses `text` (never fails: see the class comment).
  CompiledExpression(std::string_view text, Shape shape);
  /// Shape::Expression: the value of the expression at `bindings`, as
  /// evaluate_expression(text(), bindings). Shape::Arguments: an Error.
  Result<Value> evaluate(const Bindings& bindings) const;
  /// Shape::Arguments: the argument values at `bindings`, as
  /// evaluate_arguments(text(), bindings). Shape::Expression: an Error.
  Result<std::vector<Value>> evaluate_arguments(const Bindings& bindings) const;
  /// The text it was made from.
  const std::string& text() const { return m_text; }
  /// False when the text did not parse (it is evaluated afresh each time).
  bool compiled() const { return m_compiled; }

  /// One operation of the program, in the order the direct evaluator
  /// performs it (post-order): operands first, then what combines them.
  struct Op {
    enum class Kind : std::uint8_t { Literal, Name, Binary, Negate, Plus, ListBegin, ListElement, ListEnd, Argument };
    Kind kind = Kind::Literal;
    BinaryOp binary = BinaryOp::Add;
    std::uint32_t at = 0;     ///< text position the direct evaluator's error names
    std::uint32_t index = 0;  ///< into the literals (Literal) or names (Name); elements (ListBegin)
  };

 private:
  Status run(const Bindings& bindings, std::vector<Value>& stack, std::vector<Value>* arguments) const;
  std::string m_text;
  Shape m_shape;
  bool m_compiled = false;
  std::size_t m_arguments = 0;  // Shape::Arguments: how many
  std::vector<Op> m_ops;
  std::vector<Value> m_literals;
  std::vector<std::string> m_names;
};

}  // namespace failmap
