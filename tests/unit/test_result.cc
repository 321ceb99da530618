// FAILMAP_TRY and FAILMAP_TRY_ASSIGN (src/core/result.h): an Error returns
// from the enclosing function unchanged (message and kind), a value goes on,
// and the expression is evaluated exactly once.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

using failmap::Error;
using failmap::Result;
using failmap::Status;

namespace {

int g_calls = 0;

Result<int> number(bool ok, int n) {
  ++g_calls;
  if (!ok) return Error{"no number " + std::to_string(n), Error::Kind::Mismatch};
  return n;
}

Status check(bool ok) {
  ++g_calls;
  if (!ok) return failmap::input_error("check failed");
  return failmap::ok_status();
}

Result<int> twice(bool ok, int n) {
  FAILMAP_TRY_ASSIGN(int v, number(ok, n));
  return 2 * v;
}

Status both(bool first, bool second) {
  FAILMAP_TRY(check(first));
  FAILMAP_TRY(number(second, 7));
  return failmap::ok_status();
}

Result<std::vector<int>> collect(bool ok) {
  std::vector<int> out;
  FAILMAP_TRY_ASSIGN(out.emplace_back(), number(true, 1));
  FAILMAP_TRY_ASSIGN(int second, number(ok, 2));
  out.push_back(second);
  return out;
}

Result<std::unique_ptr<int>> boxed(bool ok) {
  if (!ok) return failmap::input_error("no box");
  return std::make_unique<int>(5);
}

Result<int> unboxed(bool ok) {
  FAILMAP_TRY_ASSIGN(std::unique_ptr<int> p, boxed(ok));  // a move-only value is moved out
  return *p + 1;
}

}  // namespace

TEST(Try, AssignGivesTheValueOrReturnsTheError) {
  g_calls = 0;
  auto good = twice(true, 21);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  auto bad = twice(false, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "no number 3");
  EXPECT_EQ(bad.error().kind, Error::Kind::Mismatch);
  EXPECT_EQ(g_calls, 2);  // each expression evaluated once
}

TEST(Try, StatusStopsAtTheFirstError) {
  g_calls = 0;
  EXPECT_TRUE(both(true, true).ok());
  EXPECT_EQ(g_calls, 2);
  g_calls = 0;
  auto first = both(false, true);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().message, "check failed");
  EXPECT_EQ(first.error().kind, Error::Kind::Input);
  EXPECT_EQ(g_calls, 1);  // the second call never ran
  auto second = both(true, false);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message, "no number 7");
}

TEST(Try, AssignIntoAnExistingPlaceAndMoveOnlyValues) {
  auto all = collect(true);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<int>{1, 2}));
  auto cut = collect(false);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "no number 2");
  auto u = unboxed(true);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, 6);
  EXPECT_EQ(unboxed(false).error().message, "no box");
}
