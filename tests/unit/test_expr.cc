// The fixture-expression evaluator: the Python subset of the published pages.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/expr.h"
#include "core/mechanism.h"
#include "encoding/pyjson.h"

using namespace failmap;

namespace {
std::string eval(const char* text, std::int64_t n = 1) {
  auto v = evaluate_expression(text, {{"N", Value::integer(n)}});
  return v ? python_json(*v) : "error: " + v.error().message;
}
}  // namespace

TEST(Expr, SeedPageTemplatesAtNEquals1) {
  // From seeds/000_b91ddc69b4d265ed.txt, check('short final batch',solve([N,N,1],2*N),2*N+1)
  EXPECT_EQ(eval("[N,N,1]"), "[1, 1, 1]");
  EXPECT_EQ(eval("2*N"), "2");
  EXPECT_EQ(eval("2*N+1"), "3");
  EXPECT_EQ(eval("3*N-1"), "2");
  EXPECT_EQ(eval("[2*N,N-1]"), "[2, 0]");
  EXPECT_EQ(eval("[]"), "[]");
}

TEST(Expr, PrecedenceAndPythonOperators) {
  EXPECT_EQ(eval("-7//2"), "-4");
  EXPECT_EQ(eval("-7%2"), "1");
  EXPECT_EQ(eval("2+3*4"), "14");
  EXPECT_EQ(eval("(2+3)*4"), "20");
  EXPECT_EQ(eval("-N*2", 3), "-6");
  EXPECT_EQ(eval("1/4"), "0.25");
  EXPECT_EQ(eval("1.5e3"), "1500.0");
  EXPECT_EQ(eval(".5"), "0.5");
  EXPECT_EQ(eval("[1.0]*N+[0.0]", 2), "[1.0, 1.0, 0.0]");
  EXPECT_EQ(eval("[[1,2],[3]]"), "[[1, 2], [3]]");
  EXPECT_EQ(eval("[1,2,]"), "[1, 2]");
}

TEST(Expr, ArgumentLists) {
  auto args = evaluate_arguments("[N,N,1],2*N", {{"N", Value::integer(4)}});
  ASSERT_TRUE(args.ok());
  ASSERT_EQ(args->size(), 2u);
  EXPECT_EQ(python_json((*args)[0]), "[4, 4, 1]");
  EXPECT_EQ(python_json((*args)[1]), "8");
}

TEST(Expr, RefusesWhatIsNotTheSubset) {
  EXPECT_NE(eval("__import__('os')").find("error"), std::string::npos);
  EXPECT_NE(eval("M+1").find("unknown name 'M'"), std::string::npos);
  EXPECT_NE(eval("2**3").find("error"), std::string::npos);
  EXPECT_NE(eval("007").find("leading zeros"), std::string::npos);
  EXPECT_NE(eval("9223372036854775808").find("exceeds int64"), std::string::npos);
  EXPECT_NE(eval("9223372036854775807+1").find("overflow"), std::string::npos);
  EXPECT_NE(eval("1//0").find("division by zero"), std::string::npos);
  EXPECT_NE(eval("[1,2").find("column"), std::string::npos);
  std::string deep(200, '[');
  EXPECT_NE(eval(deep.c_str()).find("nested deeper"), std::string::npos);
}

// fuzz_expr, first 60 s pass: an OOM (2 GiB) from 53 bytes. `[[x]*11111]*11112` passed the per-list cap
// (11112 elements outside, 11111 in each copy) while deep copies made 123,477,444 Values. Values an
// expression builds are now also capped in all, nested elements included (core/value.h
// k_max_value_elements, 4,000,000), in repetition, concatenation, list displays and argument lists.
TEST(Expr, FuzzNestedRepetitionIsCappedInAll) {
  const char* crash = ".2,[[[[[[[ 1111111111111111]*11111]*11112[[K1111111[v";
  auto args = evaluate_arguments(crash, {{"N", Value::integer(3)}});
  ASSERT_FALSE(args.ok());
  EXPECT_NE(args.error().message.find("list repetition would exceed 4000000 elements in all (nested lists included)"),
            std::string::npos)
      << args.error().message;

  auto count = [](const char* text) {
    auto v = evaluate_expression(text, {});
    return v ? std::to_string(element_count(*v)) : "error: " + v.error().message;
  };
  EXPECT_EQ(count("[1,[2]]"), "3");
  EXPECT_EQ(count("[[0]*999]*4000"), "4000000");  // 4000 lists of 999, plus the 4000
  EXPECT_NE(count("[[0]*999]*4001").find("list repetition would exceed 4000000 elements in all"), std::string::npos);
  EXPECT_NE(count("[0]*1000001").find("list repetition would exceed 1000000 elements"), std::string::npos);
  EXPECT_NE(count("[[0]*999]*2000+[[0]*999]*2001").find("list concatenation would exceed 4000000 elements in all"),
            std::string::npos);
  // List display: 4 + 4 * 999999 = 4,000,000; one element more is refused.
  EXPECT_EQ(count("[[0]*999999,[0]*999999,[0]*999999,[0]*999999]"), "4000000");
  EXPECT_NE(count("[[0]*999999,[0]*999999,[0]*999999,[0]*999999,0]")
                .find("column 47: list of more than 4000000 elements in all (nested lists included)"),
            std::string::npos);
  // Argument lists: the same count over the arguments.
  EXPECT_TRUE(evaluate_arguments("[0]*999999,[0]*999999,[0]*999999,[0]*999999", {}).ok());
  auto over = evaluate_arguments("[0]*999999,[0]*999999,[0]*999999,[0]*999999,0", {});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, "column 46: arguments of more than 4000000 elements in all (nested lists included)");
}

namespace {
// A value or error as text, for comparing the two evaluators.
std::string shown(const Result<Value>& v) { return v ? python_json(*v) : "error: " + v.error().message; }
std::string shown(const Result<std::vector<Value>>& v) {
  return v ? python_json(Value::list(*v)) : "error: " + v.error().message;
}
}  // namespace

// CompiledExpression parses once and evaluates per binding; every result,
// value or error (with its column), is the direct evaluator's.
TEST(Expr, CompiledEqualsDirectAtEveryBinding) {
  const std::vector<const char*> expressions = {"2*N+1",
                                                "[N,N,1]",
                                                "[2*N,N-1]",
                                                "-N//3",
                                                "-N%7",
                                                "N/4",
                                                "[1.0]*N+[0.0]",
                                                "+N",
                                                "-(-N)",
                                                "N*N*N",
                                                "1//(N-3)",               // division by zero at N = 3
                                                "9223372036854775807+N",  // overflow for N > 0
                                                "N*4611686018427387904",  // overflow for |N| >= 2
                                                "[0]*N",                  // beyond 1,000,000 elements for big N
                                                "+[N]",
                                                "-[N]",
                                                "M+N",
                                                "True+N",
                                                "None",
                                                "[N,]",
                                                "((N))",
                                                " N  * 2 ",
                                                "1//0+",  // division by zero before the syntax error: kept as text
                                                "[1,2",
                                                "007",
                                                "N N",
                                                ""};
  const std::vector<std::int64_t> ns = {0, 1, 2, 3, -5, 999, 1000000, 1000001, 4611686018427387904, INT64_MIN};
  for (const char* text : expressions) {
    CompiledExpression compiled(text, CompiledExpression::Shape::Expression);
    for (std::int64_t n : ns) {
      Bindings b{{"N", Value::integer(n)}};
      EXPECT_EQ(shown(compiled.evaluate(b)), shown(evaluate_expression(text, b))) << text << " at N = " << n;
    }
  }
  const std::vector<const char*> argument_lists = {"[N,N,1],2*N", "", "N,", "N//0,1", "1,[2", "N,M", "[0]*N,[0]*N"};
  for (const char* text : argument_lists) {
    CompiledExpression compiled(text, CompiledExpression::Shape::Arguments);
    for (std::int64_t n : ns) {
      Bindings b{{"N", Value::integer(n)}};
      EXPECT_EQ(shown(compiled.evaluate_arguments(b)), shown(evaluate_arguments(text, b))) << text << " at N = " << n;
    }
  }
}

// The values and errors themselves, hand-computed (Python 3 prints the same).
TEST(Expr, CompiledValuesAndErrors) {
  using Shape = CompiledExpression::Shape;
  auto at = [](const CompiledExpression& e, std::int64_t n) { return shown(e.evaluate({{"N", Value::integer(n)}})); };
  CompiledExpression affine("2*N+1", Shape::Expression);
  EXPECT_TRUE(affine.compiled());
  EXPECT_EQ(at(affine, 1), "3");
  EXPECT_EQ(at(affine, 1000000), "2000001");
  EXPECT_EQ(at(affine, -5), "-9");
  EXPECT_EQ(at(affine, 4611686018427387903), "9223372036854775807");
  EXPECT_EQ(at(affine, 4611686018427387904), "error: column 2: integer overflow in 2 * 4611686018427387904");
  CompiledExpression floor("-N//3", Shape::Expression);
  EXPECT_EQ(at(floor, 7), "-3");
  EXPECT_EQ(at(floor, INT64_MIN), "error: integer overflow in -(-9223372036854775808)");
  CompiledExpression zero("1//(N-3)", Shape::Expression);
  EXPECT_EQ(at(zero, 4), "1");
  EXPECT_EQ(at(zero, 3), "error: column 3: integer division by zero (1 // 0)");
  CompiledExpression list("[1.0]*N+[0.0]", Shape::Expression);
  EXPECT_EQ(at(list, 2), "[1.0, 1.0, 0.0]");
  EXPECT_EQ(at(list, 1000000), "error: column 8: list concatenation would exceed 1000000 elements");
  CompiledExpression unknown("M+N", Shape::Expression);
  EXPECT_EQ(at(unknown, 1), "error: column 1: unknown name 'M'");
  CompiledExpression plus("+[N]", Shape::Expression);
  EXPECT_EQ(at(plus, 1), "error: column 5: bad operand type for unary +: 'list'");
  CompiledExpression syntax("1//0+", Shape::Expression);
  EXPECT_FALSE(syntax.compiled());
  EXPECT_EQ(at(syntax, 1), "error: column 3: integer division by zero (1 // 0)");
  CompiledExpression args("[N,N,1],2*N", Shape::Arguments);
  EXPECT_EQ(shown(args.evaluate_arguments({{"N", Value::integer(4)}})), "[[4, 4, 1], 8]");
  EXPECT_FALSE(args.evaluate({{"N", Value::integer(4)}}).ok());  // an argument list is not one expression
  // The caps on elements in all, at the same columns as FuzzNestedRepetitionIsCappedInAll.
  CompiledExpression display("[[0]*999999,[0]*999999,[0]*999999,[0]*999999,N]", Shape::Expression);
  EXPECT_EQ(at(display, 0), "error: column 47: list of more than 4000000 elements in all (nested lists included)");
  CompiledExpression four("[0]*999999,[0]*999999,[0]*999999,[0]*999999,N", Shape::Arguments);
  EXPECT_EQ(shown(four.evaluate_arguments({{"N", Value::integer(0)}})),
            "error: column 46: arguments of more than 4000000 elements in all (nested lists included)");
}

// instantiate_fixtures evaluates each mechanism's templates parsed once per
// thread; its fixtures (or its error) are those of evaluating the template
// texts directly, binding after binding, the cache warm or cold.
TEST(Expr, InstantiateWithCachedTemplatesEqualsDirectEvaluation) {
  auto direct = [](const Mechanism& m, const Bindings& b) {
    std::string out;
    for (const FixtureTemplate& t : m.fixtures) {
      auto args = evaluate_arguments(t.args, b);
      if (!args)
        return "check '" + std::string(t.label) + "': arguments '" + std::string(t.args) + "': " + args.error().message;
      auto expected = evaluate_expression(t.expected, b);
      if (!expected)
        return "check '" + std::string(t.label) + "': expected '" + std::string(t.expected) +
               "': " + expected.error().message;
      out += std::string(t.label) + " " + python_json(Value::list(*args)) + " " + python_json(*expected) + "\n";
    }
    return out;
  };
  auto cached = [](const Mechanism& m, const Bindings& b) {
    auto fixtures = instantiate_fixtures(m, b);
    if (!fixtures) return fixtures.error().message;
    std::string out;
    for (const Fixture& f : *fixtures)
      out += f.label + " " + python_json(Value::list(f.args)) + " " + python_json(f.expected) + "\n";
    return out;
  };
  for (const Mechanism* m : all_mechanisms()) {
    for (std::int64_t n : std::initializer_list<std::int64_t>{1, 2, 1, 99, 0, -3, 1000000, 3037000500, INT64_MAX}) {
      Bindings b{{"N", Value::integer(n)}};
      EXPECT_EQ(cached(*m, b), direct(*m, b)) << m->id << " at N = " << n;
    }
  }
  // The seed mechanism's values at N = 2 (page templates, hand-computed) and its overflow.
  const Mechanism& seed = *find_mechanism("gradient-accumulation-weighting");
  std::string at2 = cached(seed, {{"N", Value::integer(2)}});
  EXPECT_EQ(at2.substr(0, at2.find('\n')), "short final batch [[2, 2, 1], 4] 5");
  EXPECT_EQ(cached(seed, {{"N", Value::integer(INT64_MAX)}}).rfind("check 'short final batch': arguments '", 0), 0u);

  // A mechanism whose templates change in place (same address) is parsed again.
  Mechanism changing = seed;
  changing.fixtures = {FixtureTemplate{"x", "N,2*N", "N+1"}};
  EXPECT_EQ(cached(changing, {{"N", Value::integer(5)}}), "x [5, 10] 6\n");
  changing.fixtures[0].expected = "N*10";
  EXPECT_EQ(cached(changing, {{"N", Value::integer(5)}}), "x [5, 10] 50\n");
  changing.fixtures[0].args = "N//0";
  EXPECT_EQ(cached(changing, {{"N", Value::integer(5)}}),
            "check 'x': arguments 'N//0': column 3: integer division by zero (5 // 0)");
}
