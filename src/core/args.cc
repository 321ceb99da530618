#include "core/args.h"

namespace failmap::args {

Error count_error(std::size_t given, std::size_t n) {
  return input_error("solve() takes " + std::to_string(n) + " arguments but " + std::to_string(given) + " were given");
}

Error type_error(std::size_t i, std::string_view name, std::string_view expected, const Value& got) {
  return input_error("argument " + std::to_string(i + 1) + " (" + std::string(name) + "): expected " +
                     std::string(expected) + ", got " + got.type_name());
}

namespace {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::string_view> solve_parameters(std::string_view python) {
  constexpr std::string_view k_def = "def solve(";
  std::size_t at = 0;
  while ((at = python.find(k_def, at)) != std::string_view::npos && at != 0 && python[at - 1] != '\n') ++at;
  if (at == std::string_view::npos) return {};
  const std::size_t open = at + k_def.size();
  const std::size_t close = python.find(')', open);
  if (close == std::string_view::npos) return {};
  std::vector<std::string_view> names;
  std::string_view list = python.substr(open, close - open);
  while (!trimmed(list).empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    item = trimmed(item.substr(0, item.find('=')));  // a default value is not part of the name
    names.push_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

Error argument_type_error(const std::vector<Value>& args, std::size_t i, std::string_view python,
                          std::string_view expected) {
  const std::vector<std::string_view> names = solve_parameters(python);
  return type_error(i, i < names.size() ? names[i] : std::string_view("?"), expected, args.at(i));
}

Result<std::int64_t> checked_sum(const std::vector<std::int64_t>& xs) {
  std::int64_t total = 0;
  for (std::int64_t x : xs) {
    FAILMAP_TRY_ASSIGN(total, checked_add(total, x));
  }
  return total;
}

Result<double> true_divide(std::int64_t a, std::int64_t b) {
  FAILMAP_TRY_ASSIGN(auto r, apply_binary(BinaryOp::TrueDiv, Value::integer(a), Value::integer(b)));
  return r.as_float();
}

Result<double> divide(double a, double b) {
  if (b == 0.0) return input_error("float division by zero");
  return a / b;
}

Value float_list_value(const std::vector<double>& xs) {
  Value::List out;
  out.reserve(xs.size());
  for (double x : xs) out.push_back(Value::floating(x));
  return Value::list(std::move(out));
}

Value int_list_value(const std::vector<std::int64_t>& xs) {
  Value::List out;
  out.reserve(xs.size());
  for (std::int64_t x : xs) out.push_back(Value::integer(x));
  return Value::list(std::move(out));
}

}  // namespace failmap::args
