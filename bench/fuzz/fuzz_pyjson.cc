// libFuzzer target: the Python-compatible JSON writer (src/encoding/pyjson.h)
// round trip against the strict parser (src/encoding/json.h), on Values built
// directly from the fuzz input rather than parsed from JSON, so every double
// bit pattern (subnormals, -0.0, the largest and smallest exponents), every
// int64 and any Unicode text reach the writer. Properties:
//   - finite values: python_json(v) parses back (parse_json_strict,
//     value_from_json) to exactly v: same kinds, same int64, bit-identical
//     doubles, same strings, same list shapes;
//   - every float's python_float_repr is Python's float.__repr__: strtod reads
//     it back to the same bits; no decimal with fewer significant digits
//     does, and when printf's correctly rounded decimal of as many digits
//     reads back, the repr has its digits (printf's "%.*e" is independent of
//     the writer's std::to_chars); a '.' or
//     an exponent always; exponent form exactly when the decimal exponent is
//     below -4 or at least 16, written e+XX / e-XX with at least two digits;
//   - NaN and the infinities are written NaN, Infinity, -Infinity.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/json.h"
#include "encoding/pyjson.h"

namespace {

using failmap::Value;

void append_utf8(std::string& s, std::uint32_t cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

Value make(FuzzedDataProvider& in, int depth) {
  switch (in.ConsumeIntegralInRange<int>(0, depth < 6 ? 5 : 4)) {
    case 0:
      return in.ConsumeBool() ? Value::none() : Value::boolean(in.ConsumeBool());
    case 1:
      return Value::integer(in.ConsumeIntegral<std::int64_t>());
    case 2: {
      std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return Value::floating(d);
    }
    case 3:
      return Value::floating(in.ConsumeFloatingPoint<double>());
    case 4: {
      std::string s;
      for (std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 24); n > 0 && in.remaining_bytes() > 0; --n) {
        // Mostly ASCII (quotes, backslashes and control characters included), some of all Unicode.
        std::uint32_t cp = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint32_t>(0, 0x7F)
                                            : in.ConsumeIntegralInRange<std::uint32_t>(0x80, 0x10FFFF);
        if (cp >= 0xD800 && cp <= 0xDFFF) cp -= 0x800;  // surrogates are not scalar values
        append_utf8(s, cp);
      }
      return Value::str(std::move(s));
    }
    default: {
      Value::List items;
      for (std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 6); n > 0 && in.remaining_bytes() > 0; --n)
        items.push_back(make(in, depth + 1));
      return Value::list(std::move(items));
    }
  }
}

bool finite(const Value& v) {
  if (v.is_float()) return std::isfinite(v.as_float());
  if (v.is_list())
    for (const Value& x : v.as_list())
      if (!finite(x)) return false;
  return true;
}

bool identical(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::None:
      return true;
    case Value::Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Value::Kind::Int:
      return a.as_int() == b.as_int();
    case Value::Kind::Float: {
      double x = a.as_float(), y = b.as_float();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Value::Kind::Str:
      return a.as_str() == b.as_str();
    case Value::Kind::List: {
      const auto &p = a.as_list(), &q = b.as_list();
      if (p.size() != q.size()) return false;
      for (std::size_t i = 0; i < p.size(); ++i)
        if (!identical(p[i], q[i])) return false;
      return true;
    }
  }
  return false;
}

double read_double(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// The decimals of `n` significant digits nearest |d| as strtod input ("MeX",
// sign of d): printf's correctly rounded one ("%.*e", exact in glibc) first,
// then the ones a unit in its last digit below and above. At a power of two
// the interval that reads back to d is narrower below than above, so the
// correctly rounded decimal may not read back while a neighbour does.
std::vector<std::string> nearest_decimals(double d, int n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", n - 1, std::fabs(d));
  std::string p = buf, digits;
  std::size_t e = p.find('e');
  for (char c : p.substr(0, e))
    if (c != '.') digits += c;
  long long m = std::stoll(digits);
  int x = std::atoi(p.c_str() + e + 1) - (n - 1);
  std::string sign = d < 0 ? "-" : "", ex = "e" + std::to_string(x);
  return {sign + std::to_string(m) + ex, sign + std::to_string(m - 1) + ex, sign + std::to_string(m + 1) + ex};
}

// Significant digits of a decimal, without leading or trailing zeros.
std::string significant(std::string_view mantissa) {
  std::string digits;
  for (char c : mantissa)
    if (c >= '0' && c <= '9') digits += c;
  digits.erase(0, digits.find_first_not_of('0'));
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits;
}

void check_repr(double d) {
  const std::string r = failmap::python_float_repr(d);
  if (std::isnan(d)) {
    if (r != "nan") __builtin_trap();
    return;
  }
  if (std::isinf(d)) {
    if (r != (d > 0 ? "inf" : "-inf")) __builtin_trap();
    return;
  }
  const double back = read_double(r);
  if (std::memcmp(&back, &d, sizeof d) != 0) __builtin_trap();  // round trip, -0.0 included
  if (d == 0.0) {
    if (r != (std::signbit(d) ? "-0.0" : "0.0")) __builtin_trap();
    return;
  }
  // Significant digits and decimal exponent of the repr.
  std::size_t e = r.find('e');
  const std::string mantissa = r.substr(0, e);
  if (mantissa.find('.') == std::string::npos && e == std::string::npos) __builtin_trap();  // "4" is an int
  std::string digits;
  for (char c : mantissa)
    if (c >= '0' && c <= '9') digits += c;
  const std::size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) __builtin_trap();
  // Python's exponent: position of the first significant digit.
  int exp10;
  if (e != std::string::npos) {
    exp10 = std::atoi(r.c_str() + e + 1);
    const std::string x = r.substr(e + 1);
    if ((x[0] != '+' && x[0] != '-') || x.size() < 3 || (x.size() > 3 && x[1] == '0')) __builtin_trap();
    if (mantissa.find('.') == 1 + (d < 0) && mantissa.back() == '0') __builtin_trap();  // "1.0e+16" is not repr
  } else {
    std::size_t point = mantissa.find('.');
    std::size_t int_digits = point - (d < 0 ? 1 : 0);
    exp10 = lead < int_digits ? static_cast<int>(int_digits - lead - 1) : -static_cast<int>(lead - int_digits + 1);
  }
  if ((e != std::string::npos) != (exp10 < -4 || exp10 >= 16)) __builtin_trap();
  digits = significant(mantissa);
  const int n = static_cast<int>(digits.size());
  if (n > 17) __builtin_trap();
  // Shortest: no decimal of n-1 significant digits reads back to d.
  if (n > 1)
    for (const std::string& c : nearest_decimals(d, n - 1))
      if (read_double(c) == d) __builtin_trap();
  // Closest: when the correctly rounded n digits read back to d, they are the repr's.
  const std::vector<std::string> near = nearest_decimals(d, n);
  if (read_double(near[0]) == d && significant(near[0].substr(0, near[0].find('e'))) != digits) __builtin_trap();
}

void check_floats(const Value& v) {
  if (v.is_float()) check_repr(v.as_float());
  if (v.is_list())
    for (const Value& x : v.as_list()) check_floats(x);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const Value v = make(in, 0);
  check_floats(v);
  const std::string written = failmap::python_json(v);
  if (!finite(v)) {
    if (v.is_float() && written != (std::isnan(v.as_float()) ? "NaN" : v.as_float() > 0 ? "Infinity" : "-Infinity"))
      __builtin_trap();
    return 0;
  }
  auto j = failmap::parse_json_strict(written, "written");
  if (!j) __builtin_trap();
  auto back = failmap::value_from_json(*j, "written");
  if (!back || !identical(*back, v)) __builtin_trap();
  return 0;
}
