// Python semantics of Value: == across int/float/bool, checked arithmetic,
// floor division and modulo as CPython computes them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/value.h"

using namespace failmap;

TEST(Value, PythonEqualityAcrossNumericTypes) {
  EXPECT_TRUE(python_equal(Value::integer(3), Value::floating(3.0)));  // 3 == 3.0
  EXPECT_TRUE(python_equal(Value::boolean(true), Value::integer(1)));  // True == 1
  EXPECT_FALSE(python_equal(Value::integer(3), Value::floating(3.5)));
  // 2**53 + 1 != float(2**53 + 1) in Python: the comparison is exact.
  EXPECT_FALSE(python_equal(Value::integer((1LL << 53) + 1), Value::floating(9007199254740992.0)));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(python_equal(Value::floating(nan), Value::floating(nan)));
  EXPECT_TRUE(python_equal(Value::floating(-0.0), Value::integer(0)));
  EXPECT_FALSE(python_equal(Value::str("1"), Value::integer(1)));
  EXPECT_TRUE(python_equal(Value::none(), Value::none()));
}

TEST(Value, ListsCompareElementwise) {
  auto a = Value::list({Value::integer(1), Value::floating(2.0)});
  auto b = Value::list({Value::floating(1.0), Value::integer(2)});
  EXPECT_TRUE(python_equal(a, b));  // [1, 2.0] == [1.0, 2]
  EXPECT_FALSE(python_equal(a, Value::list({Value::integer(1)})));
  EXPECT_FALSE(a.identical(b));
}

TEST(Value, CheckedIntegerArithmeticRefusesOverflow) {
  EXPECT_FALSE(checked_add(INT64_MAX, 1).ok());
  EXPECT_FALSE(checked_mul(INT64_MAX / 2 + 1, 2).ok());
  EXPECT_FALSE(checked_sub(INT64_MIN, 1).ok());
  EXPECT_FALSE(checked_floordiv(INT64_MIN, -1).ok());
  EXPECT_FALSE(checked_floordiv(1, 0).ok());
  EXPECT_EQ(*checked_add(2, 3), 5);
  // The message names the operation and its operands.
  EXPECT_EQ(checked_add(INT64_MAX, 1).error().message, "integer overflow in 9223372036854775807 + 1");
  EXPECT_EQ(checked_sub(INT64_MIN, 1).error().message, "integer overflow in -9223372036854775808 - 1");
  EXPECT_EQ(checked_mul(INT64_MAX / 2 + 1, 2).error().message, "integer overflow in 4611686018427387904 * 2");
  EXPECT_EQ(checked_floordiv(INT64_MIN, -1).error().message, "integer overflow in -9223372036854775808 // -1");
  EXPECT_EQ(checked_floordiv(1, 0).error().message, "integer division by zero (1 // 0)");
  EXPECT_EQ(checked_mod(-5, 0).error().message, "integer modulo by zero (-5 % 0)");
  EXPECT_EQ(*checked_mod(INT64_MIN, -1), 0);  // Python: -2**63 % -1 == 0
}

TEST(Value, FloorDivisionAndModuloFollowPython) {
  // Python: -7 // 2 == -4, -7 % 2 == 1, 7 % -2 == -1, 7 // -2 == -4
  EXPECT_EQ(*checked_floordiv(-7, 2), -4);
  EXPECT_EQ(*checked_mod(-7, 2), 1);
  EXPECT_EQ(*checked_mod(7, -2), -1);
  EXPECT_EQ(*checked_floordiv(7, -2), -4);
  // Python: -7.5 // 2.0 == -4.0, -7.5 % 2.0 == 0.5, 7.5 % -2.0 == -0.5, 0.0 % -1.0 == -0.0
  EXPECT_EQ(*float_floordiv(-7.5, 2.0), -4.0);
  EXPECT_EQ(*float_mod(-7.5, 2.0), 0.5);
  EXPECT_EQ(*float_mod(7.5, -2.0), -0.5);
  EXPECT_TRUE(std::signbit(*float_mod(0.0, -1.0)));
  EXPECT_FALSE(float_mod(1.0, 0.0).ok());
}

TEST(Value, BinaryOperatorsPromoteLikePython) {
  auto r = apply_binary(BinaryOp::TrueDiv, Value::integer(1), Value::integer(3));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_float());
  EXPECT_EQ(r->as_float(), 1.0 / 3.0);
  auto s = apply_binary(BinaryOp::Add, Value::integer(1), Value::floating(0.5));
  EXPECT_TRUE(s->is_float());
  auto rep = apply_binary(BinaryOp::Mul, Value::list({Value::integer(0)}), Value::integer(3));
  EXPECT_EQ(rep->as_list().size(), 3u);
  EXPECT_FALSE(apply_binary(BinaryOp::Add, Value::list({}), Value::integer(1)).ok());
}
