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
// Untrusted-input caps: expression text of at most 1 MiB, nesting depth 64,
// lists of at most k_max_list_length (1,000,000) elements, and at most
// k_max_value_elements (4,000,000) in all, nested lists' elements included,
// in any value built and in one argument list (core/value.h).
#pragma once

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

}  // namespace failmap
