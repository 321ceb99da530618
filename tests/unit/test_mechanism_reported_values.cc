// Worked values of the collation, tokenization, checkpoint, RL-from-feedback
// and quantization mechanisms, at the inputs of the reports they cite:
// each expected text is json.dumps of what python3 returns for the
// strategy's own Python source (the differential test's reference), so the
// C++ strategies are held to Python's values outside the fixtures too.
#include <gtest/gtest.h>

#include "support.h"

#include <string>
#include <string_view>

#include "core/evaluate.h"
#include "core/mechanism.h"
#include "encoding/pyjson.h"

using namespace failmap;

namespace {

/// json.dumps of what strategy `kind` of mechanism `id` returns for the
/// Python argument list `args_text`, or "error: ...".
std::string reported_json(std::string_view id, StrategyKind kind, std::string_view args_text) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "error: no mechanism " + std::string(id);
  auto args = evaluate_arguments(args_text, {});
  if (!args) return "error: " + args.error().message;
  if (!m->strategy(kind).solve) return "error: no " + std::string(strategy_name(kind)) + " strategy in this build";
  auto r = m->strategy(kind).call(*args);
  if (!r) return "error: " + r.error().message;
  return python_json(*r);
}

constexpr StrategyKind kB = StrategyKind::Broken;
constexpr StrategyKind kU = StrategyKind::Unsuccessful;
constexpr StrategyKind kR = StrategyKind::Repaired;

}  // namespace

// NNgen issue 61: -832 >> 7 is -6.5, the hardware gives -7.
TEST(MechanismReportedValues, RoundingRightShift) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "rounding-right-shift";
  EXPECT_EQ(reported_json(id, kR, "[-832,832],7"), "[-7, 7]");
  EXPECT_EQ(reported_json(id, kB, "[-832,832],7"), "[-7, 6]");
  EXPECT_EQ(reported_json(id, kU, "[-832,832],7"), "[-6, 7]");
  EXPECT_EQ(reported_json(id, kR, "[13,-13],1"), "[7, -7]");
  EXPECT_EQ(reported_json(id, kB, "[13,-13],1"), "[6, -7]");
  EXPECT_EQ(reported_json(id, kU, "[13,-13],1"), "[7, -6]");
}

// universal issue 1133: 0x3E89CCD5 rounds to 0x3E8A; a NaN with a low payload stays NaN.
TEST(MechanismReportedValues, Bf16RoundNearestEven) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "bf16-round-nearest-even";
  EXPECT_EQ(reported_json(id, kR, "[1049222357]"), "[16010]");
  EXPECT_EQ(reported_json(id, kB, "[1049222357]"), "[16009]");
  EXPECT_EQ(reported_json(id, kU, "[1049222357]"), "[16010]");
  EXPECT_EQ(reported_json(id, kR, "[2139095041]"), "[32704]");
  EXPECT_EQ(reported_json(id, kB, "[2139095041]"), "[32640]");
  EXPECT_EQ(reported_json(id, kU, "[2139095041]"), "[32640]");
}

// three sequences of 7 with a multiple of 8; a batch whose longest is already a multiple.
TEST(MechanismReportedValues, CollatePadToMultiple) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "collate-pad-to-multiple";
  EXPECT_EQ(reported_json(id, kR, "[7,7,7],8"), "[8, 3]");
  EXPECT_EQ(reported_json(id, kB, "[7,7,7],8"), "[7, 0]");
  EXPECT_EQ(reported_json(id, kU, "[7,7,7],8"), "[8, 3]");
  EXPECT_EQ(reported_json(id, kR, "[8,5],8"), "[8, 3]");
  EXPECT_EQ(reported_json(id, kB, "[8,5],8"), "[8, 3]");
  EXPECT_EQ(reported_json(id, kU, "[8,5],8"), "[16, 19]");
}

// 1000 steps every 500 (sd_dreambooth_extension issue 403), and 1001 steps.
TEST(MechanismReportedValues, CheckpointFinalStep) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "checkpoint-final-step";
  EXPECT_EQ(reported_json(id, kR, "1000,500"), "[500, 1000]");
  EXPECT_EQ(reported_json(id, kB, "1000,500"), "[0, 500]");
  EXPECT_EQ(reported_json(id, kU, "1000,500"), "[500, 1000]");
  EXPECT_EQ(reported_json(id, kR, "1001,500"), "[500, 1000, 1001]");
  EXPECT_EQ(reported_json(id, kB, "1001,500"), "[0, 500, 1000]");
  EXPECT_EQ(reported_json(id, kU, "1001,500"), "[500, 1000]");
}

// transformers PR 32875's two samples of 3 and two padding slots; OpenRLHF issue 377's samples of 5 and 4.
TEST(MechanismReportedValues, PackedPositionIds) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "packed-position-ids";
  EXPECT_EQ(reported_json(id, kR, "[3,3],2"), "[0, 1, 2, 0, 1, 2, 0, 1]");
  EXPECT_EQ(reported_json(id, kB, "[3,3],2"), "[0, 1, 2, 3, 4, 5, 6, 7]");
  EXPECT_EQ(reported_json(id, kU, "[3,3],2"), "[0, 1, 2, 0, 1, 2, 3, 4]");
  EXPECT_EQ(reported_json(id, kR, "[5,4],0"), "[0, 1, 2, 3, 4, 0, 1, 2, 3]");
  EXPECT_EQ(reported_json(id, kB, "[5,4],0"), "[0, 1, 2, 3, 4, 5, 6, 7, 8]");
  EXPECT_EQ(reported_json(id, kU, "[5,4],0"), "[0, 1, 2, 3, 4, 0, 1, 2, 3]");
}

// an episode ending at the first step of a two-step rollout.
TEST(MechanismReportedValues, GaeEpisodeReset) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "gae-episode-reset";
  EXPECT_EQ(reported_json(id, kR, "[1.0,1.0],[0.0,0.0,4.0],[1,0],0.5,1.0"), "[1.0, 3.0]");
  EXPECT_EQ(reported_json(id, kB, "[1.0,1.0],[0.0,0.0,4.0],[1,0],0.5,1.0"), "[2.5, 3.0]");
  EXPECT_EQ(reported_json(id, kU, "[1.0,1.0],[0.0,0.0,4.0],[1,0],0.5,1.0"), "[2.5, 3.0]");
}

// one truncated step with a final value of 4.
TEST(MechanismReportedValues, GaeTruncationBootstrap) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "gae-truncation-bootstrap";
  EXPECT_EQ(reported_json(id, kR, "[1.0],[0],[1],[4.0],8.0,0.5"), "[3.0]");
  EXPECT_EQ(reported_json(id, kB, "[1.0],[0],[1],[4.0],8.0,0.5"), "[5.0]");
  EXPECT_EQ(reported_json(id, kU, "[1.0],[0],[1],[4.0],8.0,0.5"), "[1.0]");
}

// zero-mean advantages padded with two zeros.
TEST(MechanismReportedValues, MaskedAdvantageWhitening) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "masked-advantage-whitening";
  EXPECT_EQ(reported_json(id, kR, "[-1.0,1.0,0.0,0.0],[1,1,0,0]"), "[-1.0, 1.0]");
  EXPECT_EQ(reported_json(id, kB, "[-1.0,1.0,0.0,0.0],[1,1,0,0]"), "[-1.414213562373095, 1.414213562373095]");
  EXPECT_EQ(reported_json(id, kU, "[-1.0,1.0,0.0,0.0],[1,1,0,0]"), "[-1.0, 1.0]");
}

// 7 tokens, max_len 4, stride 1.
TEST(MechanismReportedValues, OverflowWindowStride) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "overflow-window-stride";
  EXPECT_EQ(reported_json(id, kR, "7,4,1"), "[[0, 4], [3, 7]]");
  EXPECT_EQ(reported_json(id, kB, "7,4,1"), "[[0, 4], [1, 5], [2, 6], [3, 7], [4, 7], [5, 7], [6, 7]]");
  EXPECT_EQ(reported_json(id, kU, "7,4,1"), "[[0, 4], [3, 7], [6, 7]]");
}

// [CLS] w0 w0 w1 [SEP].
TEST(MechanismReportedValues, SubwordLabelAlignment) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "subword-label-alignment";
  EXPECT_EQ(reported_json(id, kR, "[-1,0,0,1,-1],[3,5]"), "[-100, 3, -100, 5, -100]");
  EXPECT_EQ(reported_json(id, kB, "[-1,0,0,1,-1],[3,5]"), "[-100, 3, 3, 5, -100]");
  EXPECT_EQ(reported_json(id, kU, "[-1,0,0,1,-1],[3,5]"), "[5, 3, -100, 5, 5]");
}

// a resume after one of three steps.
TEST(MechanismReportedValues, OptimizerStateResume) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "optimizer-state-resume";
  EXPECT_EQ(reported_json(id, kR, "[2.0,4.0,8.0],1,0.5"), "[[2, 2.5], [3, 5.25]]");
  EXPECT_EQ(reported_json(id, kB, "[2.0,4.0,8.0],1,0.5"), "[[1, 2.0], [2, 5.0]]");
  EXPECT_EQ(reported_json(id, kU, "[2.0,4.0,8.0],1,0.5"), "[[2, 2.0], [3, 5.0]]");
}

// buckets of 3 and 1 in batches of 2.
TEST(MechanismReportedValues, BucketBatchCount) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "bucket-batch-count";
  EXPECT_EQ(reported_json(id, kR, "[3,1],2"), "[3, 4]");
  EXPECT_EQ(reported_json(id, kB, "[3,1],2"), "[2, 2]");
  EXPECT_EQ(reported_json(id, kU, "[3,1],2"), "[2, 4]");
}

// PyTorch issue 23838's range (1, 3), 8 bits.
TEST(MechanismReportedValues, ObserverRangeIncludesZero) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "observer-range-includes-zero";
  EXPECT_EQ(reported_json(id, kR, "[1.0,3.0],8"), "[0.011764705882352941, 0]");
  EXPECT_EQ(reported_json(id, kB, "[1.0,3.0],8"), "[0.00784313725490196, 0]");
  EXPECT_EQ(reported_json(id, kU, "[1.0,3.0],8"), "[0.011764705882352941, 0]");
}

// 120 with a zero point of 11; 220 with a zero point of -100.
TEST(MechanismReportedValues, RequantZeroPointSaturation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "requant-zero-point-saturation";
  EXPECT_EQ(reported_json(id, kR, "[120],11"), "[127]");
  EXPECT_EQ(reported_json(id, kB, "[120],11"), "[-125]");
  EXPECT_EQ(reported_json(id, kU, "[120],11"), "[127]");
  EXPECT_EQ(reported_json(id, kR, "[220],-100"), "[120]");
  EXPECT_EQ(reported_json(id, kB, "[220],-100"), "[27]");
  EXPECT_EQ(reported_json(id, kU, "[220],-100"), "[27]");
}

// ties at 2.5 and -1.5.
TEST(MechanismReportedValues, QuantizeLinearTies) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "quantize-linear-ties";
  EXPECT_EQ(reported_json(id, kR, "[2.5],1.0,0"), "[2]");
  EXPECT_EQ(reported_json(id, kB, "[2.5],1.0,0"), "[3]");
  EXPECT_EQ(reported_json(id, kU, "[2.5],1.0,0"), "[3]");
  EXPECT_EQ(reported_json(id, kR, "[-1.5],1.0,10"), "[8]");
  EXPECT_EQ(reported_json(id, kB, "[-1.5],1.0,10"), "[8]");
  EXPECT_EQ(reported_json(id, kU, "[-1.5],1.0,10"), "[9]");
}

// two real tokens and two padded ones.
TEST(MechanismReportedValues, KlPenaltyReduction) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "kl-penalty-reduction";
  EXPECT_EQ(reported_json(id, kR, "[[1.0,2.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.5"), "[8.5]");
  EXPECT_EQ(reported_json(id, kB, "[[1.0,2.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.5"), "[7.125]");
  EXPECT_EQ(reported_json(id, kU, "[[1.0,2.0,4.0,16.0]],[[1,1,0,0]],[10.0],0.5"), "[9.25]");
}

// The report behind the mechanism (https://github.com/vwxyzjn/cleanrl/issues/18): one batch of two samples.
TEST(MechanismReportedValues, RunningRewardMoments) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "running-reward-moments";
  EXPECT_EQ(reported_json(id, kR, "[[1.0,3.0]]"), "[2.0, 1.0, 2]");
  EXPECT_EQ(reported_json(id, kB, "[[1.0,3.0]]"), "[2.0, 1.0, 1]");
  EXPECT_EQ(reported_json(id, kU, "[[1.0,3.0]]"), "[2.0, 1.0, 2]");
}

// transformers PR 5472: 186 tokens to remove and a first sequence of 25.
TEST(MechanismReportedValues, PairTruncationLongestFirst) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "pair-truncation-longest-first";
  EXPECT_EQ(reported_json(id, kR, "25,286,128"), "[25, 100]");
  EXPECT_EQ(reported_json(id, kB, "25,286,128"), "[0, 286]");
  EXPECT_EQ(reported_json(id, kU, "25,286,128"), "[25, 100]");
}

// tabnet issue 537: 100 samples, batch size 1024.
TEST(MechanismReportedValues, TrainDropLastSmallDataset) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "train-drop-last-small-dataset";
  EXPECT_EQ(reported_json(id, kR, "100,1024"), "[100]");
  EXPECT_EQ(reported_json(id, kB, "100,1024"), "[]");
  EXPECT_EQ(reported_json(id, kU, "100,1024"), "[100]");
}

// a response padded with its own end token.
TEST(MechanismReportedValues, RewardIndexAtEos) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "reward-index-at-eos";
  EXPECT_EQ(reported_json(id, kR, "[[5,6,2,2,2]],2,2"), "[2]");
  EXPECT_EQ(reported_json(id, kB, "[[5,6,2,2,2]],2,2"), "[4]");
  EXPECT_EQ(reported_json(id, kU, "[[5,6,2,2,2]],2,2"), "[1]");
}
