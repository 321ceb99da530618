// Worked values of the evaluation-metric, schedule, early-stopping,
// regularisation and data-split mechanisms: each strategy's solve() called
// directly on the example its prose header gives (and one more input), with
// the value python3 prints for the same strategy's Python source, so a C++
// strategy that drifts from its Python is caught here as well as by the
// differential test.
#include <gtest/gtest.h>

#include "support.h"

#include <string>
#include <string_view>

#include "core/expr.h"
#include "core/mechanism.h"
#include "encoding/pyjson.h"

using namespace failmap;

namespace {

/// json.dumps of what strategy `kind` of mechanism `id` returns for the
/// Python argument list `args_text`, or "error: ...".
std::string worked_json(std::string_view id, StrategyKind kind, std::string_view args_text) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "error: no mechanism " + std::string(id);
  auto args = evaluate_arguments(args_text, {});
  if (!args) return "error: " + args.error().message;
  if (!m->strategy(kind).solve) return "error: no " + std::string(strategy_name(kind)) + " strategy in this build";
  auto r = m->strategy(kind).call(*args);
  if (!r) return "error: " + r.error().message;
  return python_json(*r);
}

constexpr StrategyKind kBroken = StrategyKind::Broken;
constexpr StrategyKind kUnsuccessful = StrategyKind::Unsuccessful;
constexpr StrategyKind kRepaired = StrategyKind::Repaired;

}  // namespace

TEST(MechanismWorkedValues, PlateauWaitReset) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "plateau-wait-reset";
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,2.0,2.0,2.0,2.0],2,0"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,2.0,2.0,2.0,2.0],2,0"), "[2, 3, 4]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,2.0,2.0,2.0,2.0],2,0"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,2.0,2.0,2.0,2.0,2.0],2,1"), "[2, 5]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,2.0,2.0,2.0,2.0,2.0],2,1"), "[2, 5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,2.0,2.0,2.0,2.0,2.0],2,1"), "[2, 4]");
}

TEST(MechanismWorkedValues, EarlyStoppingMinDelta) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "early-stopping-min-delta";
  EXPECT_EQ(worked_json(id, kRepaired, "[2.0,2.25,2.25],2,0.5"), "[3, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[2.0,2.25,2.25],2,0.5"), "[3, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[2.0,2.25,2.25],2,0.5"), "[3, 0]");
  EXPECT_EQ(worked_json(id, kRepaired, "[4.0,3.75,3.5,3.25,3.25,3.25],2,0.5"), "[3, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[4.0,3.75,3.5,3.25,3.25,3.25],2,0.5"), "[6, 5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[4.0,3.75,3.5,3.25,3.25,3.25],2,0.5"), "[3, 0]");
}

TEST(MechanismWorkedValues, RocAucTies) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "roc-auc-ties";
  EXPECT_EQ(worked_json(id, kRepaired, "[0.5,0.5],[1,0]"), "0.5");
  EXPECT_EQ(worked_json(id, kBroken, "[0.5,0.5],[1,0]"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0.5,0.5],[1,0]"), "0.5");
  EXPECT_EQ(worked_json(id, kRepaired, "[0.5,0.5],[0,1]"), "0.5");
  EXPECT_EQ(worked_json(id, kBroken, "[0.5,0.5],[0,1]"), "0.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0.5,0.5],[0,1]"), "0.5");
  EXPECT_EQ(worked_json(id, kRepaired, "[0.5,0.9,0.5],[0,1,1]"), "0.75");
  EXPECT_EQ(worked_json(id, kBroken, "[0.5,0.9,0.5],[0,1,1]"), "0.5");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0.5,0.9,0.5],[0,1,1]"), "1.0");
}

TEST(MechanismWorkedValues, BleuClosestRefLength) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "bleu-closest-ref-length";
  EXPECT_EQ(worked_json(id, kRepaired, "[4],[[6]]"), "[4, 6]");
  EXPECT_EQ(worked_json(id, kBroken, "[4],[[6]]"), "[4, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[4],[[6]]"), "[4, 6]");
  EXPECT_EQ(worked_json(id, kRepaired, "[12],[[28]]"), "[12, 28]");
  EXPECT_EQ(worked_json(id, kBroken, "[12],[[28]]"), "[12, 16]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[12],[[28]]"), "[12, 28]");
  EXPECT_EQ(worked_json(id, kRepaired, "[6],[[7,5]]"), "[6, 5]");
  EXPECT_EQ(worked_json(id, kBroken, "[6],[[7,5]]"), "[6, 1]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[6],[[7,5]]"), "[6, 5]");
}

TEST(MechanismWorkedValues, WarmRestartFirstStep) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warm-restart-first-step";
  EXPECT_EQ(worked_json(id, kRepaired, "1,2,9"), "[0, 1, 3, 7]");
  EXPECT_EQ(worked_json(id, kBroken, "1,2,9"), "[1, 2, 4, 8]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "1,2,9"), "[0, 1, 2, 3, 4, 5, 6, 7, 8]");
  EXPECT_EQ(worked_json(id, kRepaired, "2,1,6"), "[0, 2, 4]");
  EXPECT_EQ(worked_json(id, kBroken, "2,1,6"), "[1, 3, 5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "2,1,6"), "[0, 2, 4]");
}

TEST(MechanismWorkedValues, EceLastBinEdge) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "ece-last-bin-edge";
  EXPECT_EQ(worked_json(id, kRepaired, "[0.875,1.0],[1,0],4"), "0.4375");
  EXPECT_EQ(worked_json(id, kBroken, "[0.875,1.0],[1,0],4"), "0.5625");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0.875,1.0],[1,0],4"), "0.4375");
  EXPECT_EQ(worked_json(id, kRepaired, "[0.0,0.5],[1,0],2"), "0.75");
  EXPECT_EQ(worked_json(id, kBroken, "[0.0,0.5],[1,0],2"), "0.75");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0.0,0.5],[1,0],2"), "0.25");
}

TEST(MechanismWorkedValues, F1BatchAverage) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "f1-batch-average";
  EXPECT_EQ(worked_json(id, kRepaired, "[0,1,0,1],[0,0,1,1],2"), "[2, 0.5]");
  EXPECT_EQ(worked_json(id, kBroken, "[0,1,0,1],[0,0,1,1],2"), "[2, 0.3333333333333333]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0,1,0,1],[0,0,1,1],2"), "[2, 0.3333333333333333]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1,0,0,0],[1,0,0,0],2"), "[2, 1.0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1,0,0,0],[1,0,0,0],2"), "[2, 0.5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1,0,0,0],[1,0,0,0],2"), "[2, 1.0]");
}

TEST(MechanismWorkedValues, MapRelevantDenominator) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "map-relevant-denominator";
  EXPECT_EQ(worked_json(id, kRepaired, "[[1,0]],[2]"), "0.5");
  EXPECT_EQ(worked_json(id, kBroken, "[[1,0]],[2]"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[[1,0]],[2]"), "1.0");
  EXPECT_EQ(worked_json(id, kRepaired, "[[1,0],[0,0]],[2,1]"), "0.25");
  EXPECT_EQ(worked_json(id, kBroken, "[[1,0],[0,0]],[2,1]"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[[1,0],[0,0]],[2,1]"), "0.5");
}

TEST(MechanismWorkedValues, DedupBeforeSplit) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "dedup-before-split";
  EXPECT_EQ(worked_json(id, kRepaired, "[5,6,5],1"), "[1, 1, 0, 1]");
  EXPECT_EQ(worked_json(id, kBroken, "[5,6,5],1"), "[2, 1, 1, 0]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[5,6,5],1"), "[2, 1, 1, 0]");
  EXPECT_EQ(worked_json(id, kRepaired, "[3,3,3],1"), "[0, 1, 0, 2]");
  EXPECT_EQ(worked_json(id, kBroken, "[3,3,3],1"), "[2, 1, 1, 0]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[3,3,3],1"), "[1, 1, 1, 1]");
}

TEST(MechanismWorkedValues, MixupLossReduction) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "mixup-loss-reduction";
  EXPECT_EQ(worked_json(id, kRepaired, "[2.0,2.0],[4.0,4.0],[0.25,0.25],2"), "7.0");
  EXPECT_EQ(worked_json(id, kBroken, "[2.0,2.0],[4.0,4.0],[0.25,0.25],2"), "3.5");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[2.0,2.0],[4.0,4.0],[0.25,0.25],2"), "7.0");
  EXPECT_EQ(worked_json(id, kRepaired, "[4.0,0.0],[0.0,4.0],[0.25,0.75],0"), "[1.0, 1.0]");
  EXPECT_EQ(worked_json(id, kBroken, "[4.0,0.0],[0.0,4.0],[0.25,0.75],0"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[4.0,0.0],[0.0,4.0],[0.25,0.75],0"), "[2.0, 2.0]");
}

TEST(MechanismWorkedValues, PlateauRelativeThreshold) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "plateau-relative-threshold";
  EXPECT_EQ(worked_json(id, kRepaired, "[-1.0,-1.0,-1.0,-1.0,-1.0],2,0.25"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kBroken, "[-1.0,-1.0,-1.0,-1.0,-1.0],2,0.25"), "[]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[-1.0,-1.0,-1.0,-1.0,-1.0],2,0.25"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,1.0,1.0,1.0,1.0],2,0.25"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,1.0,1.0,1.0,1.0],2,0.25"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,1.0,1.0,1.0,1.0],2,0.25"), "[2, 4]");
}

TEST(MechanismWorkedValues, DropoutScaleFactor) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "dropout-scale-factor";
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,1.0],[1,0],0.1,1"), "[1.1111111111111112, 0.0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,1.0],[1,0],0.1,1"), "[10.0, 0.0]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,1.0],[1,0],0.1,1"), "[1.1111111111111112, 0.0]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,1.0],[1,0],0.1,0"), "[1.0, 1.0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,1.0],[1,0],0.1,0"), "[1.0, 1.0]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,1.0],[1,0],0.1,0"), "[0.9, 0.9]");
}

TEST(MechanismWorkedValues, LrFinderSmoothing) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "lr-finder-smoothing";
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,1.0,1.0,16.0],0.5,4.0"), "[3, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,1.0,1.0,16.0],0.5,4.0"), "[3, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,1.0,1.0,16.0],0.5,4.0"), "[3, 0]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1.0,1.0,1.0,1.0],0.5,1.5"), "[4, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1.0,1.0,1.0,1.0],0.5,1.5"), "[4, 3]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1.0,1.0,1.0,1.0],0.5,1.5"), "[2, 0]");
}

TEST(MechanismWorkedValues, WarmupDecayOffset) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-decay-offset";
  EXPECT_EQ(worked_json(id, kRepaired, "2,7,2"), "[1, 0, 5]");
  EXPECT_EQ(worked_json(id, kBroken, "2,7,2"), "[1, 2, 5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "2,7,2"), "[1, 0, 5]");
  EXPECT_EQ(worked_json(id, kRepaired, "2,7,9"), "[1, 5, 5]");
  EXPECT_EQ(worked_json(id, kBroken, "2,7,9"), "[1, 5, 5]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "2,7,9"), "[1, 7, 5]");
}

TEST(MechanismWorkedValues, SubjectSplitLeakage) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "subject-split-leakage";
  EXPECT_EQ(worked_json(id, kRepaired, "[1,2,2],1"), "[1, 2, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1,2,2],1"), "[2, 1, 1]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1,2,2],1"), "[1, 2, 0]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1,1,1,2,3],2"), "[3, 2, 0]");
  EXPECT_EQ(worked_json(id, kBroken, "[1,1,1,2,3],2"), "[3, 2, 0]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1,1,1,2,3],2"), "[3, 2, 0]");
}

TEST(MechanismWorkedValues, KfoldRemainder) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "kfold-remainder";
  EXPECT_EQ(worked_json(id, kRepaired, "7,3"), "[3, 2, 2]");
  EXPECT_EQ(worked_json(id, kBroken, "7,3"), "[2, 2, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "7,3"), "[3, 3, 1]");
  EXPECT_EQ(worked_json(id, kRepaired, "5,4"), "[2, 1, 1, 1]");
  EXPECT_EQ(worked_json(id, kBroken, "5,4"), "[1, 1, 1, 1]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "5,4"), "[2, 2, 2, -1]");
}

TEST(MechanismWorkedValues, TopkAccuracyTies) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "topk-accuracy-ties";
  EXPECT_EQ(worked_json(id, kRepaired, "[[0.2,0.2,0.2,0.2,0.2]],[4],1"), "0.0");
  EXPECT_EQ(worked_json(id, kBroken, "[[0.2,0.2,0.2,0.2,0.2]],[4],1"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[[0.2,0.2,0.2,0.2,0.2]],[4],1"), "0.0");
  EXPECT_EQ(worked_json(id, kRepaired, "[[0.1639,0.1967,0.2131,0.2295,0.1967]],[4],3"), "0.0");
  EXPECT_EQ(worked_json(id, kBroken, "[[0.1639,0.1967,0.2131,0.2295,0.1967]],[4],3"), "1.0");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[[0.1639,0.1967,0.2131,0.2295,0.1967]],[4],3"), "0.0");
}

TEST(MechanismWorkedValues, BleuMultiReferenceClip) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "bleu-multi-reference-clip";
  EXPECT_EQ(worked_json(id, kRepaired, "[1,2,3,4,5,6],[[1,2,3,4,5,9],[8,2,3,4,5,6]]"), "[6, 6]");
  EXPECT_EQ(worked_json(id, kBroken, "[1,2,3,4,5,6],[[1,2,3,4,5,9],[8,2,3,4,5,6]]"), "[5, 6]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1,2,3,4,5,6],[[1,2,3,4,5,9],[8,2,3,4,5,6]]"), "[6, 6]");
  EXPECT_EQ(worked_json(id, kRepaired, "[1,1],[[1,2],[1,3]]"), "[1, 2]");
  EXPECT_EQ(worked_json(id, kBroken, "[1,1],[[1,2],[1,3]]"), "[1, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[1,1],[[1,2],[1,3]]"), "[2, 2]");
}

TEST(MechanismWorkedValues, WarmRestartResumeCycles) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warm-restart-resume-cycles";
  EXPECT_EQ(worked_json(id, kRepaired, "1,2,5"), "[2, 4]");
  EXPECT_EQ(worked_json(id, kBroken, "1,2,5"), "[4, 2]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "1,2,5"), "[2.0, 4]");
  EXPECT_EQ(worked_json(id, kRepaired, "1,3,121"), "[0, 243]");
  EXPECT_EQ(worked_json(id, kBroken, "1,3,121"), "[120, 3]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "1,3,121"), "[81.0, 81]");
}

TEST(MechanismWorkedValues, StratifiedFoldRotation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "stratified-fold-rotation";
  EXPECT_EQ(worked_json(id, kRepaired, "[0]*10+[1]*10,3"), "[[4, 3], [3, 4], [3, 3]]");
  EXPECT_EQ(worked_json(id, kBroken, "[0]*10+[1]*10,3"), "[[4, 4], [3, 3], [3, 3]]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0]*10+[1]*10,3"), "[[4, 3], [3, 4], [3, 3]]");
  EXPECT_EQ(worked_json(id, kRepaired, "[0]*5+[1]*4,3"), "[[2, 1], [2, 1], [1, 2]]");
  EXPECT_EQ(worked_json(id, kBroken, "[0]*5+[1]*4,3"), "[[2, 2], [2, 1], [1, 1]]");
  EXPECT_EQ(worked_json(id, kUnsuccessful, "[0]*5+[1]*4,3"), "[[2, 1], [2, 2], [1, 1]]");
}
