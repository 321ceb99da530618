// The fixture-expression evaluator: the Python subset of the published pages.
#include <gtest/gtest.h>

#include "core/expr.h"
#include "io/pyjson.h"

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
