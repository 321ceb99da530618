#include "core/expr.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace failmap {
namespace {

// Recursive-descent parser that evaluates as it parses (the subset has no
// side effects, so there is no need for a tree).
class Parser {
 public:
  Parser(std::string_view text, const Bindings& bindings) : m_text(text), m_bindings(bindings) {}

  Result<Value> parse_single() {
    auto v = expression(0);
    if (!v) return v;
    skip_space();
    if (m_pos != m_text.size()) return fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
    return v;
  }

  Result<std::vector<Value>> parse_list_of_arguments() {
    std::vector<Value> out;
    std::size_t elements = 0;
    skip_space();
    if (m_pos == m_text.size()) return out;
    for (;;) {
      auto v = expression(0);
      if (!v) return v.error();
      if (!count_within_cap(elements, *v)) return fail("arguments" + in_all());
      out.push_back(std::move(*v));
      skip_space();
      if (m_pos == m_text.size()) return out;
      if (m_text[m_pos] != ',') return fail("expected ',' between arguments");
      ++m_pos;
      skip_space();
      if (m_pos == m_text.size()) return out;  // trailing comma
    }
  }

 private:
  Error fail(const std::string& what) const {
    return input_error("column " + std::to_string(m_pos + 1) + ": " + what);
  }

  // A list display or an argument list holds at most k_max_value_elements
  // elements in all (core/value.h element_count): adds v and its nested
  // elements to `elements`, false beyond the cap.
  static bool count_within_cap(std::size_t& elements, const Value& v) {
    elements += 1 + element_count(v);
    return elements <= k_max_value_elements;
  }
  static std::string in_all() {
    return " of more than " + std::to_string(k_max_value_elements) + " elements in all (nested lists included)";
  }

  void skip_space() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t')) ++m_pos;
  }

  bool eat(std::string_view token) {
    skip_space();
    if (m_text.substr(m_pos, token.size()) == token) {
      m_pos += token.size();
      return true;
    }
    return false;
  }

  // expression := term (('+'|'-') term)*
  Result<Value> expression(int depth) {
    if (depth > k_max_expression_depth) return fail("expression nested deeper than " + std::to_string(k_max_expression_depth));
    auto lhs = term(depth);
    if (!lhs) return lhs;
    for (;;) {
      skip_space();
      BinaryOp op;
      if (eat("+")) op = BinaryOp::Add;
      else if (eat("-")) op = BinaryOp::Sub;
      else return lhs;
      std::size_t at = m_pos;
      auto rhs = term(depth);
      if (!rhs) return rhs;
      auto r = apply_binary(op, *lhs, *rhs);
      if (!r) return input_error("column " + std::to_string(at) + ": " + r.error().message);
      lhs = std::move(r);
    }
  }

  // term := unary (('*'|'/'|'//'|'%') unary)*
  Result<Value> term(int depth) {
    auto lhs = unary(depth);
    if (!lhs) return lhs;
    for (;;) {
      BinaryOp op;
      if (eat("//")) op = BinaryOp::FloorDiv;
      else if (eat("/")) op = BinaryOp::TrueDiv;
      else if (eat("*")) op = BinaryOp::Mul;
      else if (eat("%")) op = BinaryOp::Mod;
      else return lhs;
      std::size_t at = m_pos;
      auto rhs = unary(depth);
      if (!rhs) return rhs;
      auto r = apply_binary(op, *lhs, *rhs);
      if (!r) return input_error("column " + std::to_string(at) + ": " + r.error().message);
      lhs = std::move(r);
    }
  }

  // unary := ('-'|'+') unary | primary
  Result<Value> unary(int depth) {
    if (depth > k_max_expression_depth) return fail("expression nested deeper than " + std::to_string(k_max_expression_depth));
    if (eat("-")) {
      auto v = unary(depth + 1);
      if (!v) return v;
      return apply_negate(*v);
    }
    if (eat("+")) {
      auto v = unary(depth + 1);
      if (!v) return v;
      if (!v->is_number()) return fail(std::string("bad operand type for unary +: '") + v->type_name() + "'");
      if (v->is_bool()) return Value::integer(v->as_bool() ? 1 : 0);
      return v;
    }
    return primary(depth);
  }

  Result<Value> primary(int depth) {
    skip_space();
    if (m_pos == m_text.size()) return fail("unexpected end of expression");
    char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      auto v = expression(depth + 1);
      if (!v) return v;
      if (!eat(")")) return fail("expected ')'");
      return v;
    }
    if (c == '[') {
      ++m_pos;
      Value::List items;
      std::size_t elements = 0;
      if (eat("]")) return Value::list(std::move(items));
      for (;;) {
        if (items.size() >= k_max_list_length) return fail("list longer than " + std::to_string(k_max_list_length) + " elements");
        auto v = expression(depth + 1);
        if (!v) return v;
        if (!count_within_cap(elements, *v)) return fail("list" + in_all());
        items.push_back(std::move(*v));
        if (eat("]")) return Value::list(std::move(items));
        if (!eat(",")) return fail("expected ',' or ']'");
        if (eat("]")) return Value::list(std::move(items));
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    return fail("unexpected '" + std::string(1, c) + "'");
  }

  Result<Value> number() {
    std::size_t start = m_pos;
    bool is_float = false;
    auto digits = [&] {
      while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    };
    digits();
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      is_float = true;
      ++m_pos;
      digits();
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      is_float = true;
      ++m_pos;
      if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
      std::size_t exp_start = m_pos;
      digits();
      if (m_pos == exp_start) return fail("malformed float exponent");
    }
    if (m_pos < m_text.size() && (std::isalpha(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
      return fail("malformed number literal");
    std::string_view lit = m_text.substr(start, m_pos - start);
    if (lit == ".") return fail("malformed number literal");
    if (is_float) {
      double d = 0;
      // from_chars does not accept a leading '.', nor "1." in every mode: pad.
      std::string buf(lit);
      if (buf.front() == '.') buf.insert(buf.begin(), '0');
      auto [p, ec] = std::from_chars(buf.data(), buf.data() + buf.size(), d);
      if (ec == std::errc::result_out_of_range) {
        // Python gives inf for overflow and 0.0 for underflow; from_chars
        // reports both. Refuse rather than guess the spelling intended.
        return input_error("column " + std::to_string(start + 1) + ": float literal " + buf + " is out of range");
      }
      if (ec != std::errc() || p != buf.data() + buf.size()) return fail("malformed float literal");
      return Value::floating(d);
    }
    if (lit.size() > 1 && lit[0] == '0') {
      for (char ch : lit)
        if (ch != '0') return input_error("column " + std::to_string(start + 1) + ": leading zeros in an integer literal are not Python");
    }
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), i);
    if (ec == std::errc::result_out_of_range)
      return input_error("column " + std::to_string(start + 1) + ": integer literal " + std::string(lit) + " exceeds int64");
    if (ec != std::errc() || p != lit.data() + lit.size()) return fail("malformed integer literal");
    return Value::integer(i);
  }

  Result<Value> name() {
    std::size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) ++m_pos;
    std::string_view id = m_text.substr(start, m_pos - start);
    if (id == "True") return Value::boolean(true);
    if (id == "False") return Value::boolean(false);
    if (id == "None") return Value::none();
    for (const auto& [k, v] : m_bindings)
      if (k == id) return v;
    return input_error("column " + std::to_string(start + 1) + ": unknown name '" + std::string(id) + "'");
  }

  std::string_view m_text;
  const Bindings& m_bindings;
  std::size_t m_pos = 0;
};

}  // namespace

Result<Value> evaluate_expression(std::string_view text, const Bindings& bindings) {
  if (text.size() > k_max_expression_bytes) return input_error("expression longer than 1 MiB");
  return Parser(text, bindings).parse_single();
}

Result<std::vector<Value>> evaluate_arguments(std::string_view text, const Bindings& bindings) {
  if (text.size() > k_max_expression_bytes) return input_error("expression longer than 1 MiB");
  return Parser(text, bindings).parse_list_of_arguments();
}

}  // namespace failmap
