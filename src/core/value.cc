#include "core/value.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace failmap {

double Value::to_double() const {
  switch (kind()) {
    case Kind::Bool:
      return as_bool() ? 1.0 : 0.0;
    case Kind::Int:
      return static_cast<double>(as_int());
    case Kind::Float:
      return as_float();
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

const char* Value::type_name() const {
  switch (kind()) {
    case Kind::None:
      return "NoneType";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::List:
      return "list";
    case Kind::Dict:
      return "dict";
  }
  return "?";
}

bool Value::identical(const Value& other) const {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::None:
      return true;
    case Kind::Bool:
      return as_bool() == other.as_bool();
    case Kind::Int:
      return as_int() == other.as_int();
    case Kind::Float: {
      double a = as_float(), b = other.as_float();
      if (std::isnan(a) && std::isnan(b)) return true;
      return a == b && std::signbit(a) == std::signbit(b);
    }
    case Kind::Str:
      return as_str() == other.as_str();
    case Kind::List: {
      const List& a = as_list();
      const List& b = other.as_list();
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!a[i].identical(b[i])) return false;
      return true;
    }
    case Kind::Dict: {
      const Dict& a = as_dict();
      const Dict& b = other.as_dict();
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].first != b[i].first || !a[i].second.identical(b[i].second)) return false;
      return true;
    }
  }
  return false;
}

namespace {

// Exact comparison of an integer with a double, as CPython's float_richcompare.
bool int_equals_double(std::int64_t i, double d) {
  if (!std::isfinite(d)) return false;
  if (d != std::floor(d)) return false;
  // Every int64 lies in [-2^63, 2^63); doubles outside cannot be equal.
  if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
  return static_cast<std::int64_t>(d) == i;
}

std::int64_t int_of(const Value& v) { return v.is_bool() ? (v.as_bool() ? 1 : 0) : v.as_int(); }

}  // namespace

bool python_equal(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() && b.is_float()) return a.as_float() == b.as_float();
    if (a.is_float()) return int_equals_double(int_of(b), a.as_float());
    if (b.is_float()) return int_equals_double(int_of(a), b.as_float());
    return int_of(a) == int_of(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None:
      return true;
    case K::Str:
      return a.as_str() == b.as_str();
    case K::List: {
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!python_equal(x[i], y[i])) return false;
      return true;
    }
    case K::Dict: {
      const auto& x = a.as_dict();
      const auto& y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x) {
        auto it = std::find_if(y.begin(), y.end(), [&k = key](const auto& e) { return e.first == k; });
        if (it == y.end() || !python_equal(value, it->second)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

Error arithmetic_error(std::int64_t a, std::string_view op, std::int64_t b) {
  std::string expr = std::to_string(a) + " " + std::string(op) + " " + std::to_string(b);
  if (b == 0 && op == "//") return input_error("integer division by zero (" + expr + ")");
  if (b == 0 && op == "%") return input_error("integer modulo by zero (" + expr + ")");
  return input_error("integer overflow in " + expr);
}

// CPython float_divmod (Objects/floatobject.c), kept statement for statement.
static Result<std::pair<double, double>> float_divmod(double vx, double wx) {
  if (wx == 0.0) return input_error("float divmod by zero");
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return std::pair{floordiv, mod};
}

Result<double> float_floordiv(double a, double b) {
  auto r = float_divmod(a, b);
  if (!r) return input_error("float floor division by zero");
  return r->first;
}

Result<double> float_mod(double a, double b) {
  auto r = float_divmod(a, b);
  if (!r) return input_error("float modulo by zero");
  return r->second;
}

namespace {

const char* op_symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::TrueDiv:
      return "/";
    case BinaryOp::FloorDiv:
      return "//";
    case BinaryOp::Mod:
      return "%";
  }
  return "?";
}

Error type_error(BinaryOp op, const Value& a, const Value& b) {
  return input_error(std::string("unsupported operand type(s) for ") + op_symbol(op) + ": '" + a.type_name() +
                     "' and '" + b.type_name() + "'");
}

// element_count over a list's items; a result above `stop_above` ends the count.
std::size_t count_elements(const Value::List& items, std::size_t stop_above) {
  std::size_t n = items.size();
  for (const Value& x : items) {
    if (n > stop_above) break;
    if (x.is_list()) n += count_elements(x.as_list(), stop_above - n);
  }
  return n;
}

Error too_many_elements(const char* what) {
  return input_error(std::string(what) + " would exceed " + std::to_string(k_max_value_elements) +
                     " elements in all (nested lists included)");
}

Result<Value> repeat_list(const Value::List& items, std::int64_t times) {
  if (times <= 0 || items.empty()) return Value::list({});
  if (static_cast<std::uint64_t>(times) > k_max_list_length / items.size())
    return input_error("list repetition would exceed " + std::to_string(k_max_list_length) + " elements");
  if (static_cast<std::uint64_t>(times) > k_max_value_elements / count_elements(items, k_max_value_elements))
    return too_many_elements("list repetition");
  Value::List out;
  out.reserve(items.size() * static_cast<std::size_t>(times));
  for (std::int64_t t = 0; t < times; ++t) out.insert(out.end(), items.begin(), items.end());
  return Value::list(std::move(out));
}

// Largest magnitude below which int64 -> double is exact (2^53).
constexpr std::int64_t k_exact_double_int = std::int64_t{1} << 53;

}  // namespace

std::size_t element_count(const Value& v, std::size_t stop_above) {
  return v.is_list() ? count_elements(v.as_list(), stop_above) : 0;
}

Result<Value> apply_binary(BinaryOp op, const Value& a, const Value& b) {
  if (a.is_list() || b.is_list()) {
    if (op == BinaryOp::Add && a.is_list() && b.is_list()) {
      if (a.as_list().size() + b.as_list().size() > k_max_list_length)
        return input_error("list concatenation would exceed " + std::to_string(k_max_list_length) + " elements");
      if (element_count(a) + element_count(b) > k_max_value_elements) return too_many_elements("list concatenation");
      Value::List out = a.as_list();
      out.insert(out.end(), b.as_list().begin(), b.as_list().end());
      return Value::list(std::move(out));
    }
    if (op == BinaryOp::Mul && a.is_list() && (b.is_int() || b.is_bool())) return repeat_list(a.as_list(), int_of(b));
    if (op == BinaryOp::Mul && b.is_list() && (a.is_int() || a.is_bool())) return repeat_list(b.as_list(), int_of(a));
    return type_error(op, a, b);
  }
  if (!a.is_number() || !b.is_number()) return type_error(op, a, b);
  if (!a.is_float() && !b.is_float()) {
    std::int64_t x = int_of(a), y = int_of(b);
    Result<std::int64_t> r = std::int64_t{0};
    switch (op) {
      case BinaryOp::Add:
        r = checked_add(x, y);
        break;
      case BinaryOp::Sub:
        r = checked_sub(x, y);
        break;
      case BinaryOp::Mul:
        r = checked_mul(x, y);
        break;
      case BinaryOp::FloorDiv:
        r = checked_floordiv(x, y);
        break;
      case BinaryOp::Mod:
        r = checked_mod(x, y);
        break;
      case BinaryOp::TrueDiv: {
        if (y == 0) return input_error("division by zero (" + std::to_string(x) + " / 0)");
        // CPython divides exactly-representable ints in double arithmetic,
        // which is correctly rounded; larger operands need its long-division
        // path, which failmap does not reproduce: refuse instead of differ.
        if (x > k_exact_double_int || x < -k_exact_double_int || y > k_exact_double_int || y < -k_exact_double_int)
          return input_error("true division of integers beyond 2**53 is not supported");
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
      }
    }
    if (!r) return r.error();
    return Value::integer(*r);
  }
  double x = a.to_double(), y = b.to_double();
  switch (op) {
    case BinaryOp::Add:
      return Value::floating(x + y);
    case BinaryOp::Sub:
      return Value::floating(x - y);
    case BinaryOp::Mul:
      return Value::floating(x * y);
    case BinaryOp::TrueDiv:
      if (y == 0.0) return input_error("float division by zero");
      return Value::floating(x / y);
    case BinaryOp::FloorDiv: {
      FAILMAP_TRY_ASSIGN(auto r, float_floordiv(x, y));
      return Value::floating(r);
    }
    case BinaryOp::Mod: {
      FAILMAP_TRY_ASSIGN(auto r, float_mod(x, y));
      return Value::floating(r);
    }
  }
  return type_error(op, a, b);
}

Result<Value> apply_negate(const Value& a) {
  if (a.is_float()) return Value::floating(-a.as_float());
  if (a.is_int() || a.is_bool()) {
    std::int64_t x = int_of(a);
    if (x == std::numeric_limits<std::int64_t>::min())
      return input_error("integer overflow in -(" + std::to_string(x) + ")");
    return Value::integer(-x);
  }
  return input_error(std::string("bad operand type for unary -: '") + a.type_name() + "'");
}

}  // namespace failmap
