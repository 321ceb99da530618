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
