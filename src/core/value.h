// Value: the Python values that fixtures, strategies and observation documents
// exchange — None, bool, int (checked int64), float (IEEE double), str, list,
// and dict with str keys (only a graded candidate returns one: fixtures and
// strategies never do).
// Semantics follow CPython 3: `==` compares ints and floats exactly (3 == 3.0,
// True == 1), lists elementwise; arithmetic on ints is checked and an overflow
// is an error, never a wrap.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/result.h"

namespace failmap {

/// A Python value. Lists own their elements; copies are deep.
class Value {
 public:
  using List = std::vector<Value>;
  /// A dict with str keys, in insertion order (json.dumps prints that order;
  /// Python's `==` ignores it). Keys are unique.
  using Dict = std::vector<std::pair<std::string, Value>>;
  /// Python type of the value; `Int` is Python's int restricted to int64.
  enum class Kind { None, Bool, Int, Float, Str, List, Dict };

  Value() = default;  ///< None
  static Value none() { return Value(); }
  static Value boolean(bool b) {
    Value v;
    v.m_v = b;
    return v;
  }
  static Value integer(std::int64_t i) {
    Value v;
    v.m_v = i;
    return v;
  }
  static Value floating(double d) {
    Value v;
    v.m_v = d;
    return v;
  }
  static Value str(std::string s) {
    Value v;
    v.m_v = std::move(s);
    return v;
  }
  static Value list(List items) {
    Value v;
    v.m_v = std::move(items);
    return v;
  }
  static Value dict(Dict items) {
    Value v;
    v.m_v = std::move(items);
    return v;
  }

  Kind kind() const { return static_cast<Kind>(m_v.index()); }
  bool is_none() const { return kind() == Kind::None; }
  bool is_bool() const { return kind() == Kind::Bool; }
  bool is_int() const { return kind() == Kind::Int; }
  bool is_float() const { return kind() == Kind::Float; }
  bool is_str() const { return kind() == Kind::Str; }
  bool is_list() const { return kind() == Kind::List; }
  bool is_dict() const { return kind() == Kind::Dict; }
  /// int or bool or float: a Python number.
  bool is_number() const { return is_int() || is_bool() || is_float(); }

  bool as_bool() const { return std::get<bool>(m_v); }
  std::int64_t as_int() const { return std::get<std::int64_t>(m_v); }
  double as_float() const { return std::get<double>(m_v); }
  const std::string& as_str() const { return std::get<std::string>(m_v); }
  const List& as_list() const { return std::get<List>(m_v); }
  List& as_list() { return std::get<List>(m_v); }
  const Dict& as_dict() const { return std::get<Dict>(m_v); }

  /// Makes this the int `i`, in place (no temporary Value).
  void set_int(std::int64_t i) {
    if (auto* p = std::get_if<std::int64_t>(&m_v)) *p = i;
    else m_v.emplace<std::int64_t>(i);
  }

  /// Python's `float(x)` for a number: ints round to nearest (CPython does too).
  double to_double() const;

  /// Python's type name ("int", "float", "list", ...), for error messages.
  const char* type_name() const;

  /// Identity of representation (int 3 and float 3.0 differ; used by storage
  /// round-trip checks, not by fixture comparison).
  bool identical(const Value& other) const;

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, List, Dict> m_v;
};

/// Python 3 `a == b`: numbers compare by exact mathematical value across int,
/// bool and float (NaN equals nothing), str by bytes, lists elementwise with
/// equal length, dicts by equal key sets with equal values (order ignored),
/// None only to None; values of other type pairs are unequal.
bool python_equal(const Value& a, const Value& b);

/// The Error of the int operation `a OP b` (OP one of + - * // %) that
/// overflows, or divides by zero when b is 0 and OP is // or %:
/// "integer overflow in 3 + 4", "integer modulo by zero (3 % 0)".
[[gnu::cold, gnu::noinline]] Error arithmetic_error(std::int64_t a, std::string_view op, std::int64_t b);

/// Checked int64 arithmetic with Python semantics (floor division and modulo
/// round toward negative infinity). Overflow or division by zero is an Error
/// whose message names the operation (arithmetic_error). Inline: the
/// strategies call them in every check of every run, and the error text is
/// built out of line, only on error.
inline Result<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    return arithmetic_error(a, "+", b);
  return r;
}

inline Result<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]]
    return arithmetic_error(a, "-", b);
  return r;
}

inline Result<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    return arithmetic_error(a, "*", b);
  return r;
}

inline Result<std::int64_t> checked_floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) [[unlikely]]
    return arithmetic_error(a, "//", b);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

inline Result<std::int64_t> checked_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) [[unlikely]]
    return arithmetic_error(a, "%", b);
  if (b == -1) return std::int64_t{0};
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/// Python float `a // b` and `a % b` (CPython Objects/floatobject.c
/// float_divmod, bit for bit); division by zero is an Error.
Result<double> float_floordiv(double a, double b);
Result<double> float_mod(double a, double b);

/// Python binary operators on Values: + - * / // % over int/bool/float with
/// int->float promotion, plus list + list and list * int (repetition; the
/// result at most `k_max_list_length` long and `k_max_value_elements` in all,
/// element_count). Errors: overflow, division by zero, a list beyond a cap,
/// unsupported operand types (message as Python's TypeError would say).
enum class BinaryOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod };
Result<Value> apply_binary(BinaryOp op, const Value& a, const Value& b);
/// Python unary minus on a number (checked for INT64_MIN).
Result<Value> apply_negate(const Value& a);

/// Largest list any expression or input may build (untrusted-input cap).
inline constexpr std::size_t k_max_list_length = 1'000'000;

/// Most list elements, nested lists' elements included (element_count), in
/// one value an expression builds or one argument list (untrusted-input cap).
/// Values are deep copies, so without it `[[0]*999999]*999999` would ask for
/// ~10^12 elements from 20 bytes of text. The largest fixture of a compiled
/// mechanism at N = 1,000,000 holds 2,000,002 (`[[2.0]*N,[4.0]*N]`); 4,000,000
/// Values are about 160 MB.
inline constexpr std::size_t k_max_value_elements = 4'000'000;

/// Number of list elements in `v`, counting the elements of nested lists too
/// (0 for a scalar, 3 for [1, [2]]). Stops counting once past `stop_above`,
/// returning a number greater than it, so checking a cap costs at most the cap.
std::size_t element_count(const Value& v, std::size_t stop_above = k_max_value_elements);

}  // namespace failmap
