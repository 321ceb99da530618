// Typed access to a strategy's positional arguments. A fixture whose argument
// has the wrong Python type is an Error naming the parameter, never coerced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/value.h"

namespace failmap::args {

/// The Error of a call with `given` arguments to a solve() of `n`.
Error count_error(std::size_t given, std::size_t n);
/// The Error of args[i] (parameter `name`) not being of type `expected`
/// ("int", "list of int", ...): names the argument and the type it has.
Error type_error(std::size_t i, const char* name, const char* expected, const Value& got);

/// Errors unless exactly `n` arguments were given. Inline, with the
/// error path out of line, as the next two: every check of every run
/// calls them.
inline Status expect_count(const std::vector<Value>& args, std::size_t n) {
  if (args.size() != n) return count_error(args.size(), n);
  return ok_status();
}
/// args[i] as an int (Python int or bool).
inline Result<std::int64_t> integer(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (v.is_int()) return v.as_int();
  if (v.is_bool()) return std::int64_t{v.as_bool() ? 1 : 0};
  return type_error(i, name, "int", v);
}
/// args[i] as a float; only a Python float is accepted (an int would change
/// the reference's output type).
Result<double> floating(const std::vector<Value>& args, std::size_t i, const char* name);
/// A list of Python ints viewed in place, as int64s (int_list_view):
/// iterating or indexing reads the Values, nothing is copied. Valid while
/// the list it views is.
class IntListView {
 public:
  /// Iterates the ints in list order.
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::int64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::int64_t;
    iterator() = default;
    explicit iterator(Value::List::const_iterator it) : m_it(it) {}
    std::int64_t operator*() const { return m_it->as_int(); }
    iterator& operator++() { ++m_it; return *this; }
    iterator operator++(int) { iterator old = *this; ++m_it; return old; }
    bool operator==(const iterator& other) const = default;

   private:
    Value::List::const_iterator m_it;
  };
  /// `items` must all be ints (int_list_view checks).
  explicit IntListView(const Value::List& items) : m_items(&items) {}
  iterator begin() const { return iterator(m_items->begin()); }
  iterator end() const { return iterator(m_items->end()); }
  std::size_t size() const { return m_items->size(); }
  std::int64_t operator[](std::size_t k) const { return (*m_items)[k].as_int(); }

 private:
  const Value::List* m_items;
};

/// args[i] as a list of ints, viewed without copying (the errors of int_list).
inline Result<IntListView> int_list_view(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (!v.is_list()) return type_error(i, name, "list of int", v);
  for (const Value& x : v.as_list())
    if (!x.is_int()) return type_error(i, name, "list of int", v);
  return IntListView(v.as_list());
}
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
/// The same over a list viewed in place. Inline: most strategies sum
/// their batch list in every check.
inline Result<std::int64_t> checked_sum(const IntListView& xs) {
  std::int64_t total = 0;
  for (std::int64_t x : xs) {
    std::int64_t next;
    if (__builtin_add_overflow(total, x, &next)) [[unlikely]] return arithmetic_error(total, "+", x);
    total = next;
  }
  return total;
}

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
