#include "core/args.h"

namespace failmap::args {

Error count_error(std::size_t given, std::size_t n) {
  return input_error("solve() takes " + std::to_string(n) + " arguments but " + std::to_string(given) + " were given");
}

Error type_error(std::size_t i, const char* name, const char* expected, const Value& got) {
  return input_error("argument " + std::to_string(i + 1) + " (" + name + "): expected " + expected + ", got " +
                     got.type_name());
}

Result<double> floating(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (v.is_float()) return v.as_float();
  return type_error(i, name, "float", v);
}

Result<std::vector<std::int64_t>> int_list(const std::vector<Value>& args, std::size_t i, const char* name) {
  auto view = int_list_view(args, i, name);
  if (!view) return view.error();
  return std::vector<std::int64_t>(view->begin(), view->end());
}

Result<std::vector<double>> float_list(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (!v.is_list()) return type_error(i, name, "list of float", v);
  std::vector<double> out;
  out.reserve(v.as_list().size());
  for (const Value& x : v.as_list()) {
    if (!x.is_float()) return type_error(i, name, "list of float", v);
    out.push_back(x.as_float());
  }
  return out;
}

Result<std::vector<std::vector<double>>> float_matrix(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (!v.is_list()) return type_error(i, name, "list of lists of float", v);
  std::vector<std::vector<double>> out;
  for (const Value& row : v.as_list()) {
    auto r = float_list({row}, 0, name);
    if (!r) return type_error(i, name, "list of lists of float", v);
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::vector<std::vector<std::int64_t>>> int_matrix(const std::vector<Value>& args, std::size_t i, const char* name) {
  const Value& v = args.at(i);
  if (!v.is_list()) return type_error(i, name, "list of lists of int", v);
  std::vector<std::vector<std::int64_t>> out;
  for (const Value& row : v.as_list()) {
    auto r = int_list({row}, 0, name);
    if (!r) return type_error(i, name, "list of lists of int", v);
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::int64_t> checked_sum(const std::vector<std::int64_t>& xs) {
  std::int64_t total = 0;
  for (std::int64_t x : xs) {
    auto r = checked_add(total, x);
    if (!r) return r.error();
    total = *r;
  }
  return total;
}

Result<double> true_divide(std::int64_t a, std::int64_t b) {
  auto r = apply_binary(BinaryOp::TrueDiv, Value::integer(a), Value::integer(b));
  if (!r) return r.error();
  return r->as_float();
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
