// The seed mechanism against the published page FA-98921 and the overflow rule.
#include <gtest/gtest.h>

#include "core/evaluate.h"
#include "io/observation.h"
#include "io/pyjson.h"

using namespace failmap;

namespace {

Case seed_case() {
  auto c = make_case(*find_mechanism("gradient-accumulation-weighting"), "FA-98921", 1, {{"N", Value::integer(1)}});
  EXPECT_TRUE(c.ok());
  return *c;
}

std::string actual_column(const RunOutcome& r) {
  std::string out;
  for (const Value& v : r.actuals) out += python_json(v) + " ";
  return out;
}

}  // namespace

TEST(SeedMechanism, ReproducesThePublishedTables) {
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
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  std::vector<Value> args = {Value::list({Value::integer(INT64_MAX), Value::integer(1)}), Value::integer(5)};
  auto r = m.strategy(StrategyKind::Repaired).solve(args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("integer overflow"), std::string::npos);
  auto u = m.strategy(StrategyKind::Unsuccessful).solve(args);
  EXPECT_FALSE(u.ok());
}

TEST(SeedMechanism, WrongArgumentTypesAreRefused) {
  const Mechanism& m = *find_mechanism("gradient-accumulation-weighting");
  auto r = m.strategy(StrategyKind::Broken).solve({Value::floating(1.0), Value::integer(1)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("batch_sizes"), std::string::npos);
}
