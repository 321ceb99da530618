// Typed access to a strategy's positional arguments. A fixture whose argument
// has the wrong Python type is an Error naming the parameter, never coerced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/value.h"

namespace failmap::args {

/// Errors unless exactly `n` arguments were given.
Status expect_count(const std::vector<Value>& args, std::size_t n);
/// args[i] as an int (Python int or bool).
Result<std::int64_t> integer(const std::vector<Value>& args, std::size_t i, const char* name);
/// args[i] as a float; only a Python float is accepted (an int would change
/// the reference's output type).
Result<double> floating(const std::vector<Value>& args, std::size_t i, const char* name);
/// args[i] as a list of ints.
Result<std::vector<std::int64_t>> int_list(const std::vector<Value>& args, std::size_t i, const char* name);
/// args[i] as a list of floats (Python floats only).
Result<std::vector<double>> float_list(const std::vector<Value>& args, std::size_t i, const char* name);
/// args[i] as a list of lists of floats.
Result<std::vector<std::vector<double>>> float_matrix(const std::vector<Value>& args, std::size_t i, const char* name);
/// args[i] as a list of lists of ints.
Result<std::vector<std::vector<std::int64_t>>> int_matrix(const std::vector<Value>& args, std::size_t i, const char* name);

/// Python `sum(xs)` over ints, checked: overflow is an Error.
Result<std::int64_t> checked_sum(const std::vector<std::int64_t>& xs);

/// Python `a / b` on two ints (true division, a float). CPython's result is
/// correctly rounded and so is this one while both operands lie within
/// +-2**53; larger operands are an Error (failmap refuses rather than
/// differ), as is b == 0 (Python's ZeroDivisionError).
Result<double> true_divide(std::int64_t a, std::int64_t b);
/// Python float `a / b`: b == 0.0 is an Error (ZeroDivisionError), never inf.
Result<double> divide(double a, double b);
/// Python `len(xs)` as an int.
template <class T>
std::int64_t length(const std::vector<T>& xs) {
  return static_cast<std::int64_t>(xs.size());
}

/// Value::List of floats / ints, for building return values.
Value float_list_value(const std::vector<double>& xs);
Value int_list_value(const std::vector<std::int64_t>& xs);

}  // namespace failmap::args
