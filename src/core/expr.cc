#include "core/expr.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace failmap {
namespace {

// The operations of the subset and their errors, shared by the evaluating
// parser and CompiledExpression::run so that both say the same thing.

std::string in_all() {
  return " of more than " + std::to_string(k_max_value_elements) + " elements in all (nested lists included)";
}

Error column_error(std::size_t pos, const std::string& what) {
  return input_error("column " + std::to_string(pos + 1) + ": " + what);
}

// A bound name (True, False and None are literals, never looked up).
Result<Value> bound_name(const Bindings& bindings, std::string_view id, std::size_t start) {
  for (const auto& [k, v] : bindings)
    if (k == id) return v;
  return input_error("column " + std::to_string(start + 1) + ": unknown name '" + std::string(id) + "'");
}

// `lhs op rhs`; `at` is the position just after the operator.
Result<Value> binary_at(BinaryOp op, const Value& lhs, const Value& rhs, std::size_t at) {
  auto r = apply_binary(op, lhs, rhs);
  if (!r) return input_error("column " + std::to_string(at) + ": " + r.error().message);
  return r;
}

// Unary + on the operand that ends at `pos`.
Result<Value> unary_plus(Value v, std::size_t pos) {
  if (!v.is_number()) return column_error(pos, std::string("bad operand type for unary +: '") + v.type_name() + "'");
  if (v.is_bool()) return Value::integer(v.as_bool() ? 1 : 0);
  return v;
}

// Appends an element that ends at `pos` to a list display (what = "list") or
// an argument list (what = "arguments"), which hold at most
// k_max_value_elements elements in all (core/value.h element_count);
// `elements` counts them so far.
Status append_within_cap(std::vector<Value>& items, std::size_t& elements, Value v, std::size_t pos, const char* what) {
  elements += 1 + element_count(v);
  if (elements > k_max_value_elements) return column_error(pos, what + in_all());
  items.push_back(std::move(v));
  return ok_status();
}

// What the parser does with what it reads, evaluating as it goes.
class Evaluate {
 public:
  using Item = Value;
  struct List {
    Value::List items;
    std::size_t elements = 0;
  };
  explicit Evaluate(const Bindings& bindings) : m_bindings(bindings) {}
  Result<Value> literal(Value v) { return v; }
  Result<Value> name(std::string_view id, std::size_t start) { return bound_name(m_bindings, id, start); }
  Result<Value> binary(BinaryOp op, const Value& lhs, const Value& rhs, std::size_t at) {
    return binary_at(op, lhs, rhs, at);
  }
  Result<Value> negate(const Value& v) { return apply_negate(v); }
  Result<Value> plus(Value v, std::size_t pos) { return unary_plus(std::move(v), pos); }
  List list_begin() { return {}; }
  Status list_element(List& list, Value v, std::size_t pos) {
    return append_within_cap(list.items, list.elements, std::move(v), pos, "list");
  }
  Value list_end(List&& list) { return Value::list(std::move(list.items)); }
  Status argument(Value v, std::size_t pos) {
    return append_within_cap(m_arguments, m_argument_elements, std::move(v), pos, "arguments");
  }
  std::vector<Value> take_arguments() { return std::move(m_arguments); }

 private:
  const Bindings& m_bindings;
  std::vector<Value> m_arguments;
  std::size_t m_argument_elements = 0;
};

// What the parser does with what it reads when compiling: records each
// operation where Evaluate would perform it. Nothing can fail here (every
// failure of a compiled program depends on the binding and happens in run).
class Compile {
 public:
  using Item = Unit;
  using List = std::size_t;  // index of the list's ListBegin, whose `index` counts its elements
  using Op = CompiledExpression::Op;
  Compile(std::vector<Op>& ops, std::vector<Value>& literals, std::vector<std::string>& names)
      : m_ops(ops), m_literals(literals), m_names(names) {}
  Result<Unit> literal(Value v) {
    emit(Op::Kind::Literal, 0, static_cast<std::uint32_t>(m_literals.size()));
    m_literals.push_back(std::move(v));
    return Unit{};
  }
  Result<Unit> name(std::string_view id, std::size_t start) {
    emit(Op::Kind::Name, start, static_cast<std::uint32_t>(m_names.size()));
    m_names.emplace_back(id);
    return Unit{};
  }
  Result<Unit> binary(BinaryOp op, Unit, Unit, std::size_t at) {
    emit(Op::Kind::Binary, at, 0);
    m_ops.back().binary = op;
    return Unit{};
  }
  Result<Unit> negate(Unit) { return emit(Op::Kind::Negate, 0, 0); }
  Result<Unit> plus(Unit, std::size_t pos) { return emit(Op::Kind::Plus, pos, 0); }
  std::size_t list_begin() {
    emit(Op::Kind::ListBegin, 0, 0);
    return m_ops.size() - 1;
  }
  Status list_element(std::size_t list, Unit, std::size_t pos) {
    ++m_ops[list].index;
    return emit(Op::Kind::ListElement, pos, 0);
  }
  Unit list_end(std::size_t) { return emit(Op::Kind::ListEnd, 0, 0); }
  Status argument(Unit, std::size_t pos) {
    ++m_arguments;
    return emit(Op::Kind::Argument, pos, 0);
  }
  // How many arguments an argument list has.
  std::size_t arguments() const { return m_arguments; }

 private:
  Unit emit(Op::Kind kind, std::size_t at, std::uint32_t index) {
    Op op;
    op.kind = kind;
    op.at = static_cast<std::uint32_t>(at);  // texts are at most 1 MiB
    op.index = index;
    m_ops.push_back(op);
    return Unit{};
  }
  std::vector<Op>& m_ops;
  std::vector<Value>& m_literals;
  std::vector<std::string>& m_names;
  std::size_t m_arguments = 0;
};

// Recursive-descent parser that hands every operation to `Builder` as soon as
// its operands are read: Evaluate performs it (the subset has no side
// effects, so there is no need for a tree), Compile records it.
template <class Builder>
class Parser {
 public:
  using Item = typename Builder::Item;
  Parser(std::string_view text, Builder& builder) : m_text(text), m_b(builder) {}

  Result<Item> parse_single() {
    FAILMAP_TRY_ASSIGN(auto v, expression(0));
    skip_space();
    if (m_pos != m_text.size()) return fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
    return v;
  }

  // The arguments go to the builder (Builder::argument).
  Status parse_list_of_arguments() {
    skip_space();
    if (m_pos == m_text.size()) return ok_status();
    for (;;) {
      FAILMAP_TRY_ASSIGN(auto v, expression(0));
      FAILMAP_TRY(m_b.argument(std::move(v), m_pos));
      skip_space();
      if (m_pos == m_text.size()) return ok_status();
      if (m_text[m_pos] != ',') return fail("expected ',' between arguments");
      ++m_pos;
      skip_space();
      if (m_pos == m_text.size()) return ok_status();  // trailing comma
    }
  }

 private:
  Error fail(const std::string& what) const { return column_error(m_pos, what); }

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
  Result<Item> expression(int depth) {
    if (depth > k_max_expression_depth)
      return fail("expression nested deeper than " + std::to_string(k_max_expression_depth));
    auto lhs = term(depth);
    if (!lhs) return lhs;
    for (;;) {
      skip_space();
      BinaryOp op;
      if (eat("+")) op = BinaryOp::Add;
      else if (eat("-")) op = BinaryOp::Sub;
      else return lhs;
      std::size_t at = m_pos;
      FAILMAP_TRY_ASSIGN(auto rhs, term(depth));
      auto r = m_b.binary(op, *lhs, rhs, at);
      if (!r) return r;
      lhs = std::move(r);
    }
  }

  // term := unary (('*'|'/'|'//'|'%') unary)*
  Result<Item> term(int depth) {
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
      FAILMAP_TRY_ASSIGN(auto rhs, unary(depth));
      auto r = m_b.binary(op, *lhs, rhs, at);
      if (!r) return r;
      lhs = std::move(r);
    }
  }

  // unary := ('-'|'+') unary | primary
  Result<Item> unary(int depth) {
    if (depth > k_max_expression_depth)
      return fail("expression nested deeper than " + std::to_string(k_max_expression_depth));
    if (eat("-")) {
      FAILMAP_TRY_ASSIGN(auto v, unary(depth + 1));
      return m_b.negate(v);
    }
    if (eat("+")) {
      FAILMAP_TRY_ASSIGN(auto v, unary(depth + 1));
      return m_b.plus(std::move(v), m_pos);
    }
    return primary(depth);
  }

  Result<Item> primary(int depth) {
    skip_space();
    if (m_pos == m_text.size()) return fail("unexpected end of expression");
    char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      FAILMAP_TRY_ASSIGN(auto v, expression(depth + 1));
      if (!eat(")")) return fail("expected ')'");
      return v;
    }
    if (c == '[') {
      ++m_pos;
      auto list = m_b.list_begin();
      std::size_t count = 0;
      if (eat("]")) return m_b.list_end(std::move(list));
      for (;;) {
        if (count >= k_max_list_length)
          return fail("list longer than " + std::to_string(k_max_list_length) + " elements");
        FAILMAP_TRY_ASSIGN(auto v, expression(depth + 1));
        FAILMAP_TRY(m_b.list_element(list, std::move(v), m_pos));
        ++count;
        if (eat("]")) return m_b.list_end(std::move(list));
        if (!eat(",")) return fail("expected ',' or ']'");
        if (eat("]")) return m_b.list_end(std::move(list));
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      FAILMAP_TRY_ASSIGN(auto v, number());
      return m_b.literal(std::move(v));
    }
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
        if (ch != '0')
          return input_error("column " + std::to_string(start + 1) +
                             ": leading zeros in an integer literal are not Python");
    }
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), i);
    if (ec == std::errc::result_out_of_range)
      return input_error("column " + std::to_string(start + 1) + ": integer literal " + std::string(lit) +
                         " exceeds int64");
    if (ec != std::errc() || p != lit.data() + lit.size()) return fail("malformed integer literal");
    return Value::integer(i);
  }

  Result<Item> name() {
    std::size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
      ++m_pos;
    std::string_view id = m_text.substr(start, m_pos - start);
    if (id == "True") return m_b.literal(Value::boolean(true));
    if (id == "False") return m_b.literal(Value::boolean(false));
    if (id == "None") return m_b.literal(Value::none());
    return m_b.name(id, start);
  }

  std::string_view m_text;
  Builder& m_b;
  std::size_t m_pos = 0;
};

}  // namespace

Result<Value> evaluate_expression(std::string_view text, const Bindings& bindings) {
  if (text.size() > k_max_expression_bytes) return input_error("expression longer than 1 MiB");
  Evaluate e(bindings);
  return Parser<Evaluate>(text, e).parse_single();
}

Result<std::vector<Value>> evaluate_arguments(std::string_view text, const Bindings& bindings) {
  if (text.size() > k_max_expression_bytes) return input_error("expression longer than 1 MiB");
  Evaluate e(bindings);
  FAILMAP_TRY(Parser<Evaluate>(text, e).parse_list_of_arguments());
  return e.take_arguments();
}

CompiledExpression::CompiledExpression(std::string_view text, Shape shape) : m_text(text), m_shape(shape) {
  if (text.size() > k_max_expression_bytes) return;  // the direct evaluator's error, every time
  Compile c(m_ops, m_literals, m_names);
  Parser<Compile> parser(text, c);
  m_compiled = shape == Shape::Expression ? parser.parse_single().ok() : parser.parse_list_of_arguments().ok();
  m_arguments = c.arguments();
  if (!m_compiled) {
    m_ops.clear();
    m_literals.clear();
    m_names.clear();
  }
}

Status CompiledExpression::run(const Bindings& bindings, std::vector<Value>& stack,
                               std::vector<Value>* arguments) const {
  thread_local std::vector<std::size_t> list_elements;  // per open list display: elements in all so far
  list_elements.clear();
  std::size_t argument_elements = 0;
  for (const Op& op : m_ops) {
    switch (op.kind) {
      case Op::Kind::Literal:
        stack.push_back(m_literals[op.index]);
        break;
      case Op::Kind::Name: {
        FAILMAP_TRY_ASSIGN(auto v, bound_name(bindings, m_names[op.index], op.at));
        stack.push_back(std::move(v));
        break;
      }
      case Op::Kind::Binary: {
        FAILMAP_TRY_ASSIGN(auto r, binary_at(op.binary, stack[stack.size() - 2], stack.back(), op.at));
        stack.pop_back();
        stack.back() = std::move(r);
        break;
      }
      case Op::Kind::Negate: {
        FAILMAP_TRY_ASSIGN(auto r, apply_negate(stack.back()));
        stack.back() = std::move(r);
        break;
      }
      case Op::Kind::Plus: {
        FAILMAP_TRY_ASSIGN(auto r, unary_plus(std::move(stack.back()), op.at));
        stack.back() = std::move(r);
        break;
      }
      case Op::Kind::ListBegin: {
        Value::List items;
        items.reserve(op.index);  // its element count
        stack.push_back(Value::list(std::move(items)));
        list_elements.push_back(0);
        break;
      }
      case Op::Kind::ListElement: {
        Value v = std::move(stack.back());
        stack.pop_back();
        FAILMAP_TRY(append_within_cap(stack.back().as_list(), list_elements.back(), std::move(v), op.at, "list"));
        break;
      }
      case Op::Kind::ListEnd:
        list_elements.pop_back();
        break;
      case Op::Kind::Argument: {
        FAILMAP_TRY(append_within_cap(*arguments, argument_elements, std::move(stack.back()), op.at, "arguments"));
        stack.pop_back();
        break;
      }
    }
  }
  return ok_status();
}

Result<Value> CompiledExpression::evaluate(const Bindings& bindings) const {
  if (m_shape != Shape::Expression) return input_error("'" + m_text + "' is an argument list, not one expression");
  if (!m_compiled) return evaluate_expression(m_text, bindings);
  thread_local std::vector<Value> t_stack;  // its capacity kept from call to call
  t_stack.clear();
  FAILMAP_TRY(run(bindings, t_stack, nullptr));
  return std::move(t_stack.back());
}

Result<std::vector<Value>> CompiledExpression::evaluate_arguments(const Bindings& bindings) const {
  if (m_shape != Shape::Arguments) return input_error("'" + m_text + "' is one expression, not an argument list");
  if (!m_compiled) return failmap::evaluate_arguments(m_text, bindings);
  thread_local std::vector<Value> t_stack;  // its capacity kept from call to call
  t_stack.clear();
  std::vector<Value> out;
  out.reserve(m_arguments);
  FAILMAP_TRY(run(bindings, t_stack, &out));
  return out;
}

}  // namespace failmap
