// The registry rules every mechanism must keep (issue 4), checked over the
// whole compiled-in registry, and each mechanism's worked value from the
// issue's table, computed by calling the strategies' solve() directly.
//
// Rules (issues 4 and 22), for every N of the mechanism's declared domain
// from its minimum to 1,000 or its declared maximum: the broken and the
// unsuccessful strategy each fail at least two of the seven checks, the
// unsuccessful one passes at least one check the broken one fails and fails
// at least one check the broken one passes or fails with another value, and
// the repair passes all of them.
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

/// Every mechanism's domain starts here (EveryMechanismIsWellFormed checks).
constexpr std::int64_t k_rule_minimum = 1;
/// The rules are checked at every N from the minimum to this or the declared maximum.
constexpr std::int64_t k_rule_last = 1000;

/// The last N the rules are checked at for `m`.
std::int64_t rule_last(const Mechanism& m) {
  return m.parameter_maximum.empty() ? k_rule_last : std::min(k_rule_last, m.parameter_maximum[0]);
}

Bindings bind_n(std::int64_t n) { return {{"N", Value::integer(n)}}; }

/// json.dumps of what strategy `kind` of mechanism `id` returns for the
/// Python argument list `args_text` (e.g. "[2.0,4.0,6.0],2"), or "error: ...".
std::string solve_json(std::string_view id, StrategyKind kind, std::string_view args_text) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "error: no mechanism " + std::string(id);
  auto args = evaluate_arguments(args_text, {});
  if (!args) return "error: " + args.error().message;
  if (!m->strategy(kind).solve) return "error: no " + std::string(strategy_name(kind)) + " strategy in this build";
  auto r = m->strategy(kind).call(*args);
  if (!r) return "error: " + r.error().message;
  return python_json(*r);
}

constexpr StrategyKind B = StrategyKind::Broken;
constexpr StrategyKind U = StrategyKind::Unsuccessful;
constexpr StrategyKind R = StrategyKind::Repaired;

}  // namespace

TEST(MechanismRules, RegistryHoldsTheseMechanismsWithTheirTagsAndSources) {
  // The tags cases/GROUPS.md gives its reasons for; the sources its sections cite.
  struct Expected {
    std::string_view id;
    std::vector<std::string_view> tags;
    std::string_view source;
  };
  const std::vector<Expected> expected = {
      {"adam-epsilon-placement", {"adam-update"}, "https://github.com/tensorflow/tensorflow/issues/9047"},
      {"adamw-decoupled-decay", {"adam-update"}, "https://github.com/pytorch/pytorch/pull/4429"},
      {"class-weighted-loss-mean", {"cross-entropy-reduction"}, "https://github.com/pytorch/pytorch/issues/40560"},
      {"distributed-sampler-padding", {"distributed-evaluation"}, "https://github.com/pytorch/pytorch/issues/25162"},
      {"ema-bias-correction", {"ema"}, "https://github.com/karpathy/nanochat/pull/818"},
      {"fp16-sum-accumulation", {"reduced-precision-accumulation"},
       "https://github.com/tensorflow/tensorflow/issues/27544"},
      {"global-norm-clipping", {"gradient-clipping"}, "https://github.com/huggingface/transformers/pull/614"},
      {"gradient-accumulation-weighting", {"gradient-accumulation"},
       "https://github.com/huggingface/transformers/issues/2995"},
      {"kl-div-batchmean", {"kl-divergence-reduction"}, "https://github.com/facebookresearch/deit/issues/61"},
      {"label-smoothing-ignore-index", {"cross-entropy-reduction"}, "https://github.com/pytorch/pytorch/issues/73205"},
      {"linear-decay-final-step", {"lr-schedule"}, "https://github.com/pytorch/torchtitan/pull/1261"},
      {"loss-scale-update-order", {"grad-scaler-update"}, "https://github.com/deepspeedai/DeepSpeed/issues/2686"},
      {"pad-eos-label-mask", {"pad-token-masking"}, "https://github.com/huggingface/trl/pull/6357"},
      {"padded-token-loss-mean", {"loss-normalization"}, "https://github.com/huggingface/transformers/pull/251"},
      {"param-group-lr-scale", {"param-groups"}, "https://github.com/HorizonRobotics/alf/pull/1578"},
      {"partial-accumulation-flush", {"gradient-accumulation"},
       "https://github.com/Lightning-AI/pytorch-lightning/issues/19987"},
      {"resume-batch-skip", {"step-accounting"}, "https://github.com/huggingface/transformers/issues/5605"},
      {"scheduler-interval-mismatch", {"scheduler-step-count"}, "https://github.com/pytorch/pytorch/issues/65417"},
      {"skipped-step-scheduler", {"grad-scaler-update"}, "https://github.com/huggingface/transformers/pull/11144"},
      {"steps-per-epoch-with-accumulation", {"step-accounting"}, "https://github.com/deepset-ai/FARM/issues/46"},
      {"token-weighted-accumulation-loss", {"loss-normalization"}, "https://github.com/meta-pytorch/torchtune/pull/1875"},
      {"unscale-before-clipping", {"gradient-clipping"},
       "https://github.com/Lightning-AI/pytorch-lightning/pull/9606"},
      {"warmup-off-by-one", {"lr-schedule"}, "https://github.com/google-research/bert/issues/1293"},
      {"warmup-ratio-steps", {"step-accounting"}, "https://github.com/deepmodeling/deepmd-kit/pull/5134"},
      {"warmup-restart-on-resume", {"scheduler-step-count"}, "https://github.com/allenai/allennlp/pull/1650"},
      {"weight-decay-norm-bias", {"param-groups"}, "https://github.com/Lightning-AI/lit-llama/issues/254"},
  };
  for (const Expected& e : expected) {
    const Mechanism* m = find_mechanism(e.id);
    ASSERT_NE(m, nullptr) << e.id;
    std::vector<std::string_view> got = m->evaluation_group;
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, e.tags) << e.id;
    EXPECT_EQ(m->source, e.source) << e.id;
  }
  EXPECT_GE(all_mechanisms().size(), expected.size());
}

TEST(MechanismRules, EveryMechanismIsWellFormed) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    EXPECT_EQ(m->fixtures.size(), 7u);
    EXPECT_EQ(m->parameters, std::vector<std::string_view>{"N"});
    // The rules below are checked from the declared minimum on.
    EXPECT_EQ(m->parameter_minimum, std::vector<std::int64_t>{k_rule_minimum});
    // No maximum, or one at or above the minimum.
    EXPECT_LE(m->parameter_maximum.size(), 1u);
    if (!m->parameter_maximum.empty()) {
      EXPECT_GE(m->parameter_maximum[0], k_rule_minimum);
    }
    // Grounded in a public report or fix (issue 22): an https URL of it.
    EXPECT_EQ(m->source.rfind("https://", 0), 0u) << "source: " << m->source;
    EXPECT_EQ(m->source.find_first_of(" \t\n\""), std::string_view::npos) << "source: " << m->source;
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
    // A published page drops indentation: the three sources must still differ line by line.
    const auto stripped = [](std::string_view python) {
      std::vector<std::string_view> lines;
      for (std::size_t at = 0; at < python.size();) {
        std::size_t end = python.find('\n', at);
        if (end == std::string_view::npos) end = python.size();
        std::string_view line = python.substr(at, end - at);
        line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
        lines.push_back(line);
        at = end + 1;
      }
      return lines;
    };
    EXPECT_NE(stripped(m->strategy(B).python), stripped(m->strategy(U).python));
    EXPECT_NE(stripped(m->strategy(B).python), stripped(m->strategy(R).python));
    EXPECT_NE(stripped(m->strategy(U).python), stripped(m->strategy(R).python));
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
    for (std::int64_t n = k_rule_minimum; n <= rule_last(*m); ++n) {
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
      bool unsuccessful_fixes_one = false;
      bool unsuccessful_differs = false;
      for (std::size_t i = 0; i < c->fixtures.size(); ++i) {
        unsuccessful_fixes_one = unsuccessful_fixes_one || (unsuccessful->passed[i] && !broken->passed[i]);
        unsuccessful_differs =
            unsuccessful_differs || (!unsuccessful->passed[i] &&
                                     (broken->passed[i] || !python_equal(broken->actuals[i], unsuccessful->actuals[i])));
      }
      const bool holds = failures(*broken) >= 2 && failures(*unsuccessful) >= 2 && repaired->all_passed &&
                         unsuccessful_fixes_one && unsuccessful_differs;
      EXPECT_GE(failures(*broken), 2);
      EXPECT_GE(failures(*unsuccessful), 2);
      EXPECT_TRUE(repaired->all_passed);
      EXPECT_EQ(repaired->exit_status(), 0);
      EXPECT_TRUE(unsuccessful_fixes_one) << "the unsuccessful fix must pass a check the broken path fails";
      EXPECT_TRUE(unsuccessful_differs)
          << "the unsuccessful fix must fail a check the broken path passes or fails with another value";
      if (!holds) break;  // one report per mechanism, not one per N
    }
  }
}

TEST(MechanismRules, LargestParameterInstantiatesAndRepairHolds) {
  FAILMAP_NEEDS_REPAIRS();
  // Fixture lists stay within the expression evaluator's 1,000,000-element cap
  // and integer arithmetic within int64 up to the declared maximum, or up to
  // N = 1,000,000 where none is declared.
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    const std::int64_t largest = m->parameter_maximum.empty() ? 1'000'000 : m->parameter_maximum[0];
    auto c = make_case(*m, "FA-LARGE", 1, bind_n(largest));
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

// Issue 22's mechanisms: each strategy's value as python3 prints it (json.dumps
// of the reference source's return value on the same arguments).

TEST(MechanismWorkedValues, UnscaleBeforeClipping) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "unscale-before-clipping";
  constexpr auto at_initial_scale = "[3.0*65536.0,4.0*65536.0],65536.0,1.0";
  EXPECT_EQ(solve_json(id, R, at_initial_scale), "[0.6000000000000001, 0.8]");
  EXPECT_EQ(solve_json(id, B, at_initial_scale), "[9.155273437500001e-06, 1.220703125e-05]");
  EXPECT_EQ(solve_json(id, U, at_initial_scale), "[0.6000000000000001, 0.8]");
  EXPECT_EQ(solve_json(id, U, "[3.0*1024.0,4.0*1024.0],1024.0,1.0"), "[3.0, 4.0]");  // after a backoff: unclipped
  EXPECT_EQ(solve_json(id, R, "[1.0],0.0,1.0").rfind("error: ", 0), 0u);  // 1.0 / 0.0: ZeroDivisionError
}

TEST(MechanismWorkedValues, SkippedStepScheduler) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "skipped-step-scheduler";
  EXPECT_EQ(solve_json(id, R, "[0,0,1,0],2"), "3");
  EXPECT_EQ(solve_json(id, B, "[0,0,1,0],2"), "4");
  EXPECT_EQ(solve_json(id, U, "[0,0,1,0],2"), "2");  // the growth on iteration 2 counted as a skip
}

TEST(MechanismWorkedValues, Fp16SumAccumulation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "fp16-sum-accumulation";
  EXPECT_EQ(solve_json(id, R, "[1.0]+[0.00048828125]*7"), "1.00390625");
  EXPECT_EQ(solve_json(id, B, "[1.0]+[0.00048828125]*7"), "1.0");
  EXPECT_EQ(solve_json(id, U, "[1.0]+[0.00048828125]*7"), "1.0029296875");
  EXPECT_EQ(solve_json(id, B, "[1.0]*4096"), "2048.0");
  EXPECT_EQ(solve_json(id, U, "[0.1,0.2]"), "0.2998046875");  // struct 'e' rounds 0.1 and 0.2 first
  EXPECT_EQ(solve_json(id, R, "[0.1,0.2]"), "0.300048828125");
  EXPECT_EQ(solve_json(id, R, "[65504.0,32.0]").rfind("error: ", 0), 0u);  // OverflowError at 65520
  EXPECT_EQ(solve_json(id, R, "[65504.0,8.0]"), "65504.0");                  // rounds down, no overflow
}

TEST(MechanismWorkedValues, LabelSmoothingIgnoreIndex) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "label-smoothing-ignore-index";
  constexpr auto args = "[2.0,4.0,1.0],[4.0,8.0,2.0],[1,-100,3],0.1";
  EXPECT_EQ(solve_json(id, R, args), "1.6500000000000001");
  EXPECT_EQ(solve_json(id, B, args), "2.566666666666667");
  EXPECT_EQ(solve_json(id, U, args), "2.0500000000000003");
  EXPECT_EQ(solve_json(id, R, "[1.0],[1.0],[-100],0.1").rfind("error: ", 0), 0u);  // nothing kept: / 0
}

TEST(MechanismWorkedValues, ClassWeightedLossMean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "class-weighted-loss-mean";
  EXPECT_EQ(solve_json(id, R, "[0.2,0.3,0.5],[2,1,0],[2.0,4.0,6.0]"), "0.2833333333333334");
  EXPECT_EQ(solve_json(id, B, "[0.2,0.3,0.5],[2,1,0],[2.0,4.0,6.0]"), "1.1333333333333335");
  EXPECT_EQ(solve_json(id, U, "[1.0],[-1],[1.0,3.0]"), "0.75");  // weight[-1], as Python indexes
  EXPECT_EQ(solve_json(id, R, "[1.0],[-1],[1.0,3.0]"), "1.0");
  EXPECT_EQ(solve_json(id, R, "[1.0],[2],[1.0,3.0]").rfind("error: ", 0), 0u);  // IndexError
}

TEST(MechanismWorkedValues, PadEosLabelMask) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "pad-eos-label-mask";
  constexpr auto args = "[[5,7,2,2]],[[1,1,1,0]],[[0.5,0.25,0.125,9.0]],2";
  EXPECT_EQ(solve_json(id, R, args), "0.2916666666666667");
  EXPECT_EQ(solve_json(id, B, args), "2.46875");
  EXPECT_EQ(solve_json(id, U, args), "0.375");
}

TEST(MechanismWorkedValues, WeightDecayNormBias) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "weight-decay-norm-bias";
  constexpr auto args = "[2,1,0],[0,1,0],[1.0,1.0,1.0],0.001,0.1";
  EXPECT_EQ(solve_json(id, R, args), "[0.9999, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, B, args), "[0.9999, 0.9999, 0.9999]");
  EXPECT_EQ(solve_json(id, U, args), "[0.9999, 1.0, 0.9999]");
}

TEST(MechanismWorkedValues, AdamwDecoupledDecay) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "adamw-decoupled-decay";
  EXPECT_EQ(solve_json(id, R, "[1.0],[0.0],0.001,0.01"), "[0.99999]");
  EXPECT_EQ(solve_json(id, B, "[1.0],[0.0],0.001,0.01"), "[0.999000000999999]");  // L2 normalised to a full step
  EXPECT_EQ(solve_json(id, U, "[1.0],[0.0],0.001,0.01"), "[0.99]");
  EXPECT_EQ(solve_json(id, R, "[1.0],[0.5],0.001,0.01"), "[0.99899000002]");
}

TEST(MechanismWorkedValues, AdamEpsilonPlacement) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "adam-epsilon-placement";
  constexpr auto args = "0.1,0.01,1,0.001,0.9,0.999,1e-8";
  EXPECT_EQ(solve_json(id, R, args), "0.00031622776501683816");
  EXPECT_EQ(solve_json(id, B, args), "0.00031622776585872424");
  EXPECT_EQ(solve_json(id, U, args), "0.0003162277343940647");
  EXPECT_EQ(solve_json(id, R, "0.1,0.01,1,0.001,1.0,0.999,1e-8").rfind("error: ", 0), 0u);  // 1 - 1.0 == 0
}

TEST(MechanismWorkedValues, WarmupRestartOnResume) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-restart-on-resume";
  EXPECT_EQ(solve_json(id, R, "0.1,3,5,2"), "[0.10000000000000002, 0.1, 0.1]");
  EXPECT_EQ(solve_json(id, B, "0.1,3,5,2"), "[0.03333333333333333, 0.06666666666666667, 0.10000000000000002]");
  EXPECT_EQ(solve_json(id, U, "0.1,3,5,2"), "[0.06666666666666667, 0.10000000000000002, 0.1]");
}

TEST(MechanismWorkedValues, SchedulerIntervalMismatch) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "scheduler-interval-mismatch";
  constexpr auto args = "0.1,2,3,[0,1,2,3,4,5]";
  EXPECT_EQ(solve_json(id, R, args),
            "[0.10000000000000002, 0.08333333333333333, 0.06666666666666667, 0.05000000000000001, "
            "0.03333333333333333, 0.016666666666666666]");
  EXPECT_EQ(solve_json(id, U, args), "[0.1, 0.1, 0.1, 0.05, 0.05, 0.05]");
  EXPECT_EQ(solve_json(id, R, "0.1,2,0,[0]").rfind("error: ", 0), 0u);  // horizon 0: ZeroDivisionError
  EXPECT_EQ(solve_json(id, B, "0.1,2,3,[-1]"), "[0.11666666666666668]");  // -1 // 3 == -1: Python floors
}

TEST(MechanismWorkedValues, LossScaleUpdateOrder) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "loss-scale-update-order";
  EXPECT_EQ(solve_json(id, R, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 6.0]");
  EXPECT_EQ(solve_json(id, B, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 3.0]");  // the grown scale divides step 2
  EXPECT_EQ(solve_json(id, U, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 6.0]");
}

TEST(MechanismWorkedValues, KlDivBatchmean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "kl-div-batchmean";
  constexpr auto args = "[[[0.1,0.2],[0.3,0.4]],[[0.5,0.6],[0.7,0.8]]]";  // [batch 2][time 2][classes 2]
  EXPECT_EQ(solve_json(id, R, args), "0.8999999999999999");
  EXPECT_EQ(solve_json(id, B, args), "0.44999999999999996");  // reduction='mean': over 8 elements
  EXPECT_EQ(solve_json(id, U, args), "1.7999999999999998");  // 'batchmean': over the batch of 2
  EXPECT_EQ(solve_json(id, R, "[[1.0]]").rfind("error: ", 0), 0u);  // not a list of lists of lists
}

TEST(MechanismWorkedValues, WarmupRatioSteps) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-ratio-steps";
  EXPECT_EQ(solve_json(id, R, "100,0.07"), "8");  // 100 * 0.07 == 7.000000000000001 in Python floats
  EXPECT_EQ(solve_json(id, B, "100,0.07"), "7");
  EXPECT_EQ(solve_json(id, R, "30,0.03"), "1");  // 0.8999999999999999
  EXPECT_EQ(solve_json(id, B, "30,0.03"), "0");
  EXPECT_EQ(solve_json(id, U, "30,0.0"), "1");
  EXPECT_EQ(solve_json(id, R, "30,1e300").rfind("error: ", 0), 0u);  // beyond int64: refused, not wrapped
}

TEST(MechanismWorkedValues, ParamGroupLrScale) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "param-group-lr-scale";
  constexpr auto args = "0.1,[1.0,0.3],[0.1,1.0]";
  EXPECT_EQ(solve_json(id, R, args), "[[0.010000000000000002, 0.003], [0.1, 0.03]]");
  EXPECT_EQ(solve_json(id, B, args), "[[0.010000000000000002, 0.010000000000000002], [0.1, 0.1]]");
  EXPECT_EQ(solve_json(id, U, args), "[[0.010000000000000002, 0.003], [0.010000000000000002, 0.003]]");
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
