// The seed mechanism against the published page FA-98921 and the overflow rule.
#include <gtest/gtest.h>

#include "support.h"

#include "core/evaluate.h"
#include "encoding/pyjson.h"
#include "io/observation.h"

using namespace failmap;
using namespace failmap::testing_support;

namespace {

std::string actual_column(const RunOutcome& r) {
  std::string out;
  for (const Value& v : r.actuals) out += python_json(v) + " ";
  return out;
}

}  // namespace

TEST(SeedMechanism, ReproducesThePublishedTables) {
  FAILMAP_NEEDS_REPAIRS();
  Case c = seed_case();
  // Actual columns of the page's two tables (seeds/000_b91ddc69b4d265ed.txt).
  auto broken = run_strategy(c, StrategyKind::Broken);
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ(actual_column(*broken), "0 2 0 0 0 2 0 ");
  EXPECT_EQ(broken->exit_status(), 1);
  auto unsuccessful = run_strategy(c, StrategyKind::Unsuccessful);
  ASSERT_TRUE(unsuccessful.ok());
  EXPECT_EQ(actual_column(*unsuccessful), "2 2 0 0 3 2 2 ");
  EXPECT_EQ(unsuccessful->exit_status(), 1);
  auto repaired = run_strategy(c, StrategyKind::Repaired);
  ASSERT_TRUE(repaired.ok());
  EXPECT_TRUE(repaired->all_passed);
  EXPECT_EQ(repaired->exit_status(), 0);
}

TEST(SeedMechanism, ObservationDigestMatchesPythonOutput) {
  // sha256 of python3's stdout for the broken reference script, newline removed
  // (computed with: python3 ref.py | head -c -1 | sha256sum).
  Case c = seed_case();
  auto broken = run_strategy(c, StrategyKind::Broken);
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ(observation_digest(observation_document(c, *broken)),
            "a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68");
}

TEST(SeedMechanism, StrategyOverflowIsAnErrorNotAWrap) {
  FAILMAP_NEEDS_REPAIRS();
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  std::vector<Value> args = {Value::list({Value::integer(INT64_MAX), Value::integer(1)}), Value::integer(5)};
  auto r = m.strategy(StrategyKind::Repaired).call(args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("integer overflow"), std::string::npos);
  auto u = m.strategy(StrategyKind::Unsuccessful).call(args);
  EXPECT_FALSE(u.ok());
}

TEST(SeedMechanism, WrongArgumentTypesAreRefused) {
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  auto r = m.strategy(StrategyKind::Broken).call({Value::floating(1.0), Value::integer(1)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("batch_sizes"), std::string::npos);
}

// The seed's solve functions read batch_sizes in place (args::int_list_view):
// Python's results over a list (broken keeps sizes equal to target, the
// unsuccessful fix rounds the sum down to a multiple of target, the repair
// sums), and the same refusals, word for word, as a copied list: a bool
// among the sizes, an int instead of the list, a sum beyond int64.
TEST(SeedMechanism, SolvesReadTheSizesInPlace) {
  FAILMAP_NEEDS_REPAIRS();
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  auto solve = [&](StrategyKind k, Value sizes, std::int64_t target) {
    return m.strategy(k).call({std::move(sizes), Value::integer(target)});
  };
  Value sizes = Value::list({Value::integer(4), Value::integer(-3), Value::integer(4), Value::integer(9)});
  EXPECT_EQ(solve(StrategyKind::Broken, sizes, 4)->as_int(), 8);
  EXPECT_EQ(solve(StrategyKind::Unsuccessful, sizes, 4)->as_int(), 12);   // 14 - 14 % 4
  EXPECT_EQ(solve(StrategyKind::Unsuccessful, sizes, -4)->as_int(), 16);  // 14 - (14 % -4 == -2)
  EXPECT_EQ(solve(StrategyKind::Repaired, sizes, 4)->as_int(), 14);
  EXPECT_EQ(solve(StrategyKind::Repaired, Value::list({}), 4)->as_int(), 0);
  auto with_bool = solve(StrategyKind::Repaired, Value::list({Value::integer(1), Value::boolean(true)}), 1);
  ASSERT_FALSE(with_bool.ok());
  EXPECT_EQ(with_bool.error().message, "argument 1 (batch_sizes): expected list of int, got list");
  auto not_list = solve(StrategyKind::Broken, Value::integer(3), 1);
  ASSERT_FALSE(not_list.ok());
  EXPECT_EQ(not_list.error().message, "argument 1 (batch_sizes): expected list of int, got int");
  auto overflow = solve(StrategyKind::Repaired, Value::list({Value::integer(INT64_MAX), Value::integer(1)}), 1);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message, "integer overflow in 9223372036854775807 + 1");
}
