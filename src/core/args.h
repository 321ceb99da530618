// Typed access to a strategy's positional arguments, and the helpers its body
// computes with. A strategy is a C++ function of typed parameters; the
// adapter call_typed (below) checks a fixture's arguments against those types
// before the body runs. An argument of the wrong Python type is an Error
// naming the parameter, never coerced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/value.h"

namespace failmap::args {

/// The Error of a call with `given` arguments to a solve() of `n`:
/// "solve() takes N arguments but GIVEN were given".
Error count_error(std::size_t given, std::size_t n);
/// The Error of args[i] (parameter `name`) not being of type `expected`
/// ("int", "list of int", ...): names the argument and the type it has,
/// "argument I+1 (NAME): expected EXPECTED, got TYPE".
Error type_error(std::size_t i, std::string_view name, std::string_view expected, const Value& got);

/// A list of Python ints viewed in place, as int64s (a strategy parameter of
/// this type, see Parameter below): iterating or indexing reads the Values,
/// nothing is copied. Valid while the list it views is.
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
    iterator& operator++() {
      ++m_it;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++m_it;
      return old;
    }
    bool operator==(const iterator& other) const = default;

   private:
    Value::List::const_iterator m_it;
  };
  /// A view of no list; only assigned to before use.
  IntListView() = default;
  /// `items` must all be ints (Parameter<IntListView> checks).
  explicit IntListView(const Value::List& items) : m_items(&items) {}
  iterator begin() const { return iterator(m_items->begin()); }
  iterator end() const { return iterator(m_items->end()); }
  std::size_t size() const { return m_items->size(); }
  std::int64_t operator[](std::size_t k) const { return (*m_items)[k].as_int(); }

 private:
  const Value::List* m_items = nullptr;
};

// ---------------------------------------------------------------------------
// Typed strategies. A strategy is written as a plain C++ function of typed
// parameters, one per parameter of its Python `def solve(...)`, e.g.
//
//     Result<Value> broken(double base, std::int64_t warmup, std::int64_t steps);
//
// and its Strategy entry (core/mechanism.h) wraps it in call_typed, which
// checks the fixture's arguments against those types before the body runs:
// the count first, then each argument in order, the first mismatch being the
// Error. The C++ type of a parameter says which Python values it accepts:
//
//   std::int64_t                  int, or bool (as 0 or 1), as Python would compute with it
//   double                        float only (an int would change the reference's output type)
//   IntListView                   list of int (no bool), viewed in place
//   std::vector<std::int64_t>     list of int, copied
//   std::vector<double>           list of float, copied
//   std::vector<std::vector<T>>   list of lists of T, for T int64 or double, and one level deeper
//   const Value&                  anything, unchecked: the body checks it
//
// A parameter may be taken by value or by const reference; a list is read
// once, and moved (not copied again) into a by-value parameter. The names in
// the errors are those of the strategy's own `def solve(...)` line.

/// A strategy body with its type erased (the Strategy entry stores it and
/// call_typed casts it back to the exact type it was made from).
using ErasedFn = void (*)();

/// The parameter names of the first `def solve(NAME, NAME, ...):` line of a
/// strategy's Python source, in order (empty when there is none, as in the
/// open build's repaired entry). Views into `python`.
std::vector<std::string_view> solve_parameters(std::string_view python);

/// The Error of args[i] not being of type `expected`, named as parameter i of
/// `python`'s def line ("?" when the line has no such parameter).
Error argument_type_error(const std::vector<Value>& args, std::size_t i, std::string_view python,
                          std::string_view expected);

/// How a parameter of C++ type T (without reference or const) is read from
/// its Python value: `read` checks the value and holds it in `Held` (false:
/// the value is not of the type; nothing is coerced), and `expected` is the
/// Python type argument errors name. A type without a specialization is a
/// compile error at the Strategy entry of a function that takes it.
template <class T>
struct Parameter;

/// A list item of type T: an int (not a bool, unlike a parameter), a float,
/// or a list of items. `plural` names them after "list of ".
template <class T>
struct Item;

template <>
struct Item<std::int64_t> {
  static bool read(const Value& v, std::int64_t& out) {
    if (!v.is_int()) return false;
    out = v.as_int();
    return true;
  }
  static std::string plural() { return "int"; }
};

template <>
struct Item<double> {
  static bool read(const Value& v, double& out) {
    if (!v.is_float()) return false;
    out = v.as_float();
    return true;
  }
  static std::string plural() { return "float"; }
};

template <class T>
struct Item<std::vector<T>> {
  static bool read(const Value& v, std::vector<T>& out) {
    if (!v.is_list()) return false;
    const Value::List& items = v.as_list();
    out.resize(items.size());
    for (std::size_t k = 0; k < items.size(); ++k)
      if (!Item<T>::read(items[k], out[k])) return false;
    return true;
  }
  static std::string plural() { return "lists of " + Item<T>::plural(); }
};

template <>
struct Parameter<std::int64_t> {
  using Held = std::int64_t;
  static bool read(const Value& v, Held& out) {
    if (v.is_int()) {
      out = v.as_int();
      return true;
    }
    if (v.is_bool()) {
      out = v.as_bool() ? 1 : 0;
      return true;
    }
    return false;
  }
  static std::string expected() { return "int"; }
};

template <>
struct Parameter<double> {
  using Held = double;
  static bool read(const Value& v, Held& out) { return Item<double>::read(v, out); }
  static std::string expected() { return "float"; }
};

template <>
struct Parameter<IntListView> {
  using Held = IntListView;
  static bool read(const Value& v, Held& out) {
    if (!v.is_list()) return false;
    for (const Value& x : v.as_list())
      if (!x.is_int()) return false;  // as Item<std::int64_t>: no bool
    out = IntListView(v.as_list());
    return true;
  }
  static std::string expected() { return "list of int"; }
};

template <>
struct Parameter<Value> {
  using Held = const Value*;
  static bool read(const Value& v, Held& out) {
    out = &v;
    return true;
  }
  static std::string expected() { return "any value"; }
};

template <class T>
struct Parameter<std::vector<T>> {
  using Held = std::vector<T>;
  static bool read(const Value& v, Held& out) { return Item<std::vector<T>>::read(v, out); }
  static std::string expected() { return "list of " + Item<T>::plural(); }
};

/// A held argument as the body's parameter of declared type P: a Value by
/// reference, anything else moved (a list is not copied a second time).
template <class P, class Held>
decltype(auto) pass(Held& held) {
  if constexpr (std::is_same_v<std::remove_cvref_t<P>, Value>) {
    return static_cast<const Value&>(*held);
  } else {
    return std::move(held);
  }
}

/// The adapter a Strategy entry stores for a body of parameter types P...
/// (`body` is that function, type-erased): errors unless exactly
/// sizeof...(P) arguments were given (count_error) and each is of its
/// parameter's type (argument_type_error, the first mismatch in order), then
/// calls the body with the values read. `python` is read on the error path only.
template <class... P>
Result<Value> call_typed(ErasedFn body, std::string_view python, const std::vector<Value>& args) {
  constexpr std::size_t n = sizeof...(P);
  if (args.size() != n) return count_error(args.size(), n);
  return [&]<std::size_t... I>(std::index_sequence<I...>)->Result<Value> {
    std::tuple<typename Parameter<std::remove_cvref_t<P>>::Held...> held;
    std::size_t bad = n;
    const bool ok = ((Parameter<std::remove_cvref_t<P>>::read(args[I], std::get<I>(held)) || (bad = I, false)) && ...);
    if (!ok) [[unlikely]] {
      std::string expected;
      ((I == bad ? (expected = Parameter<std::remove_cvref_t<P>>::expected(), 0) : 0), ...);
      return argument_type_error(args, bad, python, expected);
    }
    const auto fn = reinterpret_cast<Result<Value> (*)(P...)>(body);
    return fn(pass<P>(std::get<I>(held))...);
  }
  (std::index_sequence_for<P...>{});
}

/// Python `sum(xs)` over ints, checked: overflow is an Error.
Result<std::int64_t> checked_sum(const std::vector<std::int64_t>& xs);
/// The same over a list viewed in place. Inline: most strategies sum
/// their batch list in every check.
inline Result<std::int64_t> checked_sum(const IntListView& xs) {
  std::int64_t total = 0;
  for (std::int64_t x : xs) {
    std::int64_t next;
    if (__builtin_add_overflow(total, x, &next)) [[unlikely]]
      return arithmetic_error(total, "+", x);
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

/// Python `len(xs)` of a viewed list.
inline std::int64_t length(const IntListView& xs) { return static_cast<std::int64_t>(xs.size()); }

/// Value::List of floats / ints, for building return values.
Value float_list_value(const std::vector<double>& xs);
Value int_list_value(const std::vector<std::int64_t>& xs);

}  // namespace failmap::args
