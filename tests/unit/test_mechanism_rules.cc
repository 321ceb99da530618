// The registry rules every mechanism must keep (issue 4), checked over the
// whole compiled-in registry, and each mechanism's worked value from the
// issue's table, computed by calling the strategies' solve() directly.
//
// Rules, for every N a case may bind: the broken and the unsuccessful
// strategy each fail at least two of the seven checks, the unsuccessful one
// passes at least one check the broken one fails, and the repair passes all.
#include <gtest/gtest.h>

#include "support.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "core/case.h"
#include "core/evaluate.h"
#include "core/expr.h"
#include "core/mechanism.h"
#include "io/pyjson.h"

using namespace failmap;

namespace {

constexpr std::int64_t k_rule_ns[] = {1, 2, 3, 5, 10, 1000};

Bindings bind_n(std::int64_t n) { return {{"N", Value::integer(n)}}; }

/// json.dumps of what strategy `kind` of mechanism `id` returns for the
/// Python argument list `args_text` (e.g. "[2.0,4.0,6.0],2"), or "error: ...".
std::string solve_json(std::string_view id, StrategyKind kind, std::string_view args_text) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "error: no mechanism " + std::string(id);
  auto args = evaluate_arguments(args_text, {});
  if (!args) return "error: " + args.error().message;
  auto r = m->strategy(kind).solve(*args);
  if (!r) return "error: " + r.error().message;
  return python_json(*r);
}

constexpr StrategyKind B = StrategyKind::Broken;
constexpr StrategyKind U = StrategyKind::Unsuccessful;
constexpr StrategyKind R = StrategyKind::Repaired;

}  // namespace

TEST(MechanismRules, RegistryHoldsElevenMechanismsWithTheirTags) {
  const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> expected = {
      {"distributed-sampler-padding", {"distributed-evaluation"}},
      {"ema-bias-correction", {"ema"}},
      {"global-norm-clipping", {"gradient-clipping"}},
      {"gradient-accumulation-weighting", {"gradient-accumulation"}},
      {"linear-decay-final-step", {"lr-schedule"}},
      {"padded-token-loss-mean", {"loss-normalization"}},
      {"partial-accumulation-flush", {"gradient-accumulation"}},
      {"resume-batch-skip", {"gradient-accumulation", "step-accounting"}},
      {"steps-per-epoch-with-accumulation", {"gradient-accumulation", "step-accounting"}},
      {"token-weighted-accumulation-loss", {"gradient-accumulation", "loss-normalization"}},
      {"warmup-off-by-one", {"lr-schedule"}},
  };
  for (const auto& [id, tags] : expected) {
    const Mechanism* m = find_mechanism(id);
    ASSERT_NE(m, nullptr) << id;
    std::vector<std::string_view> got = m->evaluation_group;
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, tags) << id;
  }
  EXPECT_GE(all_mechanisms().size(), expected.size());
}

TEST(MechanismRules, EveryMechanismIsWellFormed) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    EXPECT_EQ(m->fixtures.size(), 7u);
    EXPECT_EQ(m->parameters, std::vector<std::string_view>{"N"});
    // The rules below are checked from the declared minimum on (k_rule_ns starts there).
    EXPECT_EQ(m->parameter_minimum, std::vector<std::int64_t>{k_rule_ns[0]});
    EXPECT_FALSE(m->title.empty());
    EXPECT_FALSE(m->evaluation_group.empty());
    const MechanismProse& p = m->prose;
    EXPECT_FALSE(p.case_title.empty());
    EXPECT_NE(p.case_title.back(), '.');
    ASSERT_FALSE(p.summary.empty());
    EXPECT_EQ(p.summary.back(), '.');
    for (std::string_view text : {p.root_cause, p.failure, p.unsuccessful_approach, p.contract, p.why_it_matters,
                                  p.scope})
      EXPECT_FALSE(text.empty());
    for (StrategyKind kind : k_all_strategies) {
      const Strategy& s = m->strategy(kind);
      EXPECT_EQ(s.kind, kind);
      EXPECT_NE(s.solve, nullptr);
      EXPECT_NE(s.python.find("def solve("), std::string_view::npos);
      ASSERT_FALSE(s.python.empty());
      EXPECT_EQ(s.python.back(), '\n');
      EXPECT_EQ(s.python.find('\t'), std::string_view::npos) << "indent with spaces";
      EXPECT_EQ(s.python.find("\n\n"), std::string_view::npos) << "no blank lines: the page drops them";
    }
  }
}

TEST(MechanismRules, StrategiesSeparateOnEveryVariant) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Mechanism* m : all_mechanisms()) {
    for (std::int64_t n : k_rule_ns) {
      SCOPED_TRACE(std::string(m->id) + " N=" + std::to_string(n));
      auto c = make_case(*m, "FA-RULES", 1, bind_n(n));
      ASSERT_TRUE(c) << c.error().message;
      auto broken = run_strategy(*c, B);
      auto unsuccessful = run_strategy(*c, U);
      auto repaired = run_strategy(*c, R);
      ASSERT_TRUE(broken) << broken.error().message;
      ASSERT_TRUE(unsuccessful) << unsuccessful.error().message;
      ASSERT_TRUE(repaired) << repaired.error().message;
      const auto failures = [](const RunOutcome& o) { return std::count(o.passed.begin(), o.passed.end(), 0); };
      EXPECT_GE(failures(*broken), 2);
      EXPECT_GE(failures(*unsuccessful), 2);
      EXPECT_TRUE(repaired->all_passed);
      EXPECT_EQ(repaired->exit_status(), 0);
      bool unsuccessful_fixes_one = false;
      for (std::size_t i = 0; i < c->fixtures.size(); ++i)
        unsuccessful_fixes_one = unsuccessful_fixes_one || (unsuccessful->passed[i] && !broken->passed[i]);
      EXPECT_TRUE(unsuccessful_fixes_one) << "the unsuccessful fix must pass a check the broken path fails";
    }
  }
}

TEST(MechanismRules, LargestParameterInstantiatesAndRepairHolds) {
  FAILMAP_NEEDS_REPAIRS();
  // Fixture lists stay within the expression evaluator's 1,000,000-element cap
  // and integer arithmetic within int64 up to N = 1,000,000.
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    auto c = make_case(*m, "FA-LARGE", 1, bind_n(1'000'000));
    ASSERT_TRUE(c) << c.error().message;
    auto repaired = run_strategy(*c, R);
    ASSERT_TRUE(repaired) << repaired.error().message;
    EXPECT_TRUE(repaired->all_passed);
  }
}

TEST(MechanismWorkedValues, TokenWeightedAccumulationLoss) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "token-weighted-accumulation-loss";
  EXPECT_EQ(solve_json(id, R, "[[1.0],[3.0,3.0,3.0]]"), "2.5");
  EXPECT_EQ(solve_json(id, B, "[[1.0],[3.0,3.0,3.0]]"), "2.0");
  EXPECT_EQ(solve_json(id, U, "[[1.0],[3.0,3.0,3.0]]"), "5.0");
  EXPECT_EQ(solve_json(id, R, "[[1.0],[]]").rfind("error: ", 0), std::string::npos);  // empty micro-batch is fine
  EXPECT_EQ(solve_json(id, B, "[[1.0],[]]").rfind("error: ", 0), 0u);  // Python: ZeroDivisionError
  EXPECT_EQ(solve_json(id, R, "[1.0]").rfind("error: ", 0), 0u);       // not a list of lists
}

TEST(MechanismWorkedValues, PartialAccumulationFlush) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "partial-accumulation-flush";
  EXPECT_EQ(solve_json(id, R, "[2.0,4.0,6.0],2"), "[3.0, 6.0]");
  EXPECT_EQ(solve_json(id, B, "[2.0,4.0,6.0],2"), "[3.0]");
  EXPECT_EQ(solve_json(id, U, "[2.0,4.0,6.0],2"), "[3.0, 3.0]");
  EXPECT_EQ(solve_json(id, R, "[2.0,4.0,6.0],-1"), "[]");  // range(0, 3, -1) is empty
  EXPECT_EQ(solve_json(id, R, "[2.0],0").rfind("error: ", 0), 0u);
}

TEST(MechanismWorkedValues, PaddedTokenLossMean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "padded-token-loss-mean";
  constexpr auto args = "[[1.0,1.0,0.0,0.0],[3.0,3.0,3.0,3.0]],[[1,1,0,0],[1,1,1,1]]";
  EXPECT_EQ(solve_json(id, R, args), "2.3333333333333335");
  EXPECT_EQ(solve_json(id, B, args), "1.75");
  EXPECT_EQ(solve_json(id, U, args), "2.0");
  EXPECT_EQ(solve_json(id, R, "[[1.0,2.0,5.0]],[[1,1]]"), "1.5");  // zip truncates to the mask
}

TEST(MechanismWorkedValues, DistributedSamplerPadding) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "distributed-sampler-padding";
  constexpr auto args = "[1,1,0,0,0,0,0,0,0,0],3";
  EXPECT_EQ(solve_json(id, R, args), "0.2");
  EXPECT_EQ(solve_json(id, B, args), "0.3333333333333333");
  EXPECT_EQ(solve_json(id, U, args), "0.4");
  EXPECT_EQ(solve_json(id, B, "[1,0],5"), "0.6");  // cyclic padding: [1,0,1,0,1]
  EXPECT_EQ(solve_json(id, R, "[],3").rfind("error: ", 0), 0u);  // Python: ZeroDivisionError
}

TEST(MechanismWorkedValues, WarmupOffByOne) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-off-by-one";
  EXPECT_EQ(solve_json(id, R, "1.0,4,6"), "[0.25, 0.5, 0.75, 1.0, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, B, "1.0,4,6"), "[0.0, 0.25, 0.5, 0.75, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, U, "1.0,4,6"), "[0.5, 0.75, 1.0, 1.0, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, R, "1.0,0,1").rfind("error: ", 0), 0u);
}

TEST(MechanismWorkedValues, LinearDecayFinalStep) {
  FAILMAP_NEEDS_REPAIRS();
  // The documented contract: floor + (base - floor) * (T - 1 - t) / (T - 1).
  constexpr auto id = "linear-decay-final-step";
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,3"), "[4.0, 3.0, 2.0]");
  EXPECT_EQ(solve_json(id, B, "4.0,2.0,3"), "[4.0, 3.333333333333333, 2.6666666666666665]");
  EXPECT_EQ(solve_json(id, U, "4.0,2.0,3"), "[4.0, 2.0, 0.0]");
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,1"), "[2.0]");
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,0"), "[]");
}

TEST(MechanismWorkedValues, GlobalNormClipping) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "global-norm-clipping";
  EXPECT_EQ(solve_json(id, R, "[[3.0,4.0],[12.0]],1.0"),
            "[[0.23076923076923078, 0.3076923076923077], [0.9230769230769231]]");
  EXPECT_EQ(solve_json(id, B, "[[3.0,4.0],[12.0]],1.0"), "[[0.6000000000000001, 0.8], [1.0]]");
  EXPECT_EQ(solve_json(id, U, "[[3.0,4.0]],10.0"), "[[6.0, 8.0]]");
  EXPECT_EQ(solve_json(id, R, "[[3.0,4.0]],10.0"), "[[3.0, 4.0]]");
  EXPECT_EQ(solve_json(id, R, "[[0.0],[]],1.0"), "[[0.0], []]");
}

TEST(MechanismWorkedValues, EmaBiasCorrection) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "ema-bias-correction";
  EXPECT_EQ(solve_json(id, R, "0.9,[10.0,10.0,10.0]"), "[10.0, 10.0, 10.0]");
  EXPECT_EQ(solve_json(id, B, "0.5,[4.0,4.0]"), "[2.0, 3.0]");
  EXPECT_EQ(solve_json(id, U, "0.5,[4.0,4.0]"), "[2.6666666666666665, 3.4285714285714284]");
  EXPECT_EQ(solve_json(id, R, "1.0,[4.0]").rfind("error: ", 0), 0u);  // 1 - 1.0 == 0: ZeroDivisionError
}

TEST(MechanismWorkedValues, StepsPerEpochWithAccumulation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "steps-per-epoch-with-accumulation";
  EXPECT_EQ(solve_json(id, R, "5,2"), "3");
  EXPECT_EQ(solve_json(id, R, "4,2"), "2");
  EXPECT_EQ(solve_json(id, B, "5,2"), "2");
  EXPECT_EQ(solve_json(id, U, "4,2"), "3");
  EXPECT_EQ(solve_json(id, R, "9223372036854775807,2").rfind("error: ", 0), 0u);  // overflow, never a wrap
}

TEST(MechanismWorkedValues, ResumeBatchSkip) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "resume-batch-skip";
  EXPECT_EQ(solve_json(id, R, "5,2,4"), "[1, 2]");
  EXPECT_EQ(solve_json(id, B, "5,2,4"), "[0, 4]");
  EXPECT_EQ(solve_json(id, U, "5,2,4"), "[1, 3]");
  EXPECT_EQ(solve_json(id, U, "5,4611686018427387904,4").rfind("error: ", 0), 0u);  // S * K overflows
}

// The full build holds every repair; the open build (-DFAILMAP_REPAIRS=OFF)
// none: no function, no source, and running it is the one-line refusal.
TEST(MechanismRules, RepairsAreCompiledInExactlyInTheFullBuild) {
  for (const failmap::Mechanism* m : failmap::all_mechanisms()) {
    const failmap::Strategy& r = m->strategy(failmap::StrategyKind::Repaired);
    EXPECT_EQ(r.solve != nullptr, failmap::k_build_has_repairs) << m->id;
    EXPECT_EQ(!r.python.empty(), failmap::k_build_has_repairs) << m->id;
    auto c = failmap::make_case(*m, "X-1", 1, {{"N", failmap::Value::integer(1)}});
    ASSERT_TRUE(c.ok()) << m->id;
    auto run = failmap::run_strategy(*c, failmap::StrategyKind::Repaired);
    if (failmap::k_build_has_repairs) {
      ASSERT_TRUE(run.ok()) << run.error().message;
      EXPECT_TRUE(run->all_passed) << m->id;
    } else {
      ASSERT_FALSE(run.ok()) << m->id;
      EXPECT_EQ(run.error().message,
                "case X-1, strategy repaired: this build of failmap has no repairs (an open build, "
                "-DFAILMAP_REPAIRS=OFF); use a full build for anything that needs the repaired strategy");
    }
  }
}
