// archive_stats (src/store/archive_stats.h) on an archive built here, against
// numbers counted by hand from the mechanisms' evaluation groups.
#include <gtest/gtest.h>

#include "support.h"

#include <filesystem>

#include "core/evaluate.h"
#include "encoding/sha256.h"
#include "io/observation.h"
#include "io/split_folder.h"
#include "store/archive_stats.h"
#include "store/runner.h"

using namespace failmap;

namespace {

std::string stats_temp_db(const char* name) {
  auto p = ::failmap::testing_support::unit_temp_dir() / (std::string("stats-") + name + ".db");
  std::filesystem::remove(p);
  return p.string();
}

// Case `id` of `mechanism` at N = n, inserted into `a`.
Case insert_stats_case(Archive& a, const char* mechanism, const char* id, std::int64_t n) {
  const Mechanism* m = find_mechanism(mechanism);
  EXPECT_NE(m, nullptr) << mechanism;
  auto c = make_case(*m, id, 1, {{"N", Value::integer(n)}});
  EXPECT_TRUE(c) << c.error().message;
  EXPECT_TRUE(a.insert_case(*c));
  return *c;
}

// Records `kind`'s run of `c` as `run` computes it (that strategy alone: the
// open build has no repaired one, and the test records none).
void record_stats_run(Archive& a, const Case& c, StrategyKind kind) {
  auto outcome = run_strategy(c, kind);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const std::string document = observation_document(c, *outcome);
  RunRecord record{
      c.id, kind, document, outcome->exit_status(), observation_digest(document), "test", "2024-01-01T00:00:00Z"};
  ASSERT_TRUE(a.record_run(record));
}

}  // namespace

// Six cases: four linked by the tag gradient-accumulation (two mechanisms
// carry it), two by distributed-evaluation; FA-1 and FA-2 are the same
// mechanism at the same N, so the same checks. Three runs recorded.
TEST(ArchiveStats, CountsCasesUnitsRunsAndDuplicates) {
  auto a = Archive::open(stats_temp_db("six"), Archive::Mode::Create);
  ASSERT_TRUE(a) << a.error().message;
  Case one = insert_stats_case(*a, "gradient-accumulation-weighting", "FA-1", 1);
  Case two = insert_stats_case(*a, "gradient-accumulation-weighting", "FA-2", 1);
  insert_stats_case(*a, "gradient-accumulation-weighting", "FA-3", 2);
  insert_stats_case(*a, "partial-accumulation-flush", "FA-4", 1);
  insert_stats_case(*a, "eval-drop-last", "FA-5", 1);
  insert_stats_case(*a, "distributed-sampler-padding", "FA-6", 1);
  record_stats_run(*a, one, StrategyKind::Broken);
  record_stats_run(*a, two, StrategyKind::Broken);
  record_stats_run(*a, one, StrategyKind::Unsuccessful);

  auto s = archive_stats(*a);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->cases, 6);
  EXPECT_EQ(s->cases_by_mechanism, (std::map<std::string, std::int64_t>{{"distributed-sampler-padding", 1},
                                                                        {"eval-drop-last", 1},
                                                                        {"gradient-accumulation-weighting", 3},
                                                                        {"partial-accumulation-flush", 1}}));
  EXPECT_EQ(s->units, 2u);
  ASSERT_TRUE(s->largest_unit);
  EXPECT_EQ(s->largest_unit->key, "group:gradient-accumulation");
  EXPECT_EQ(s->largest_unit->cases, 4u);
  EXPECT_EQ(s->largest_unit->share, 4.0 / 6.0);
  EXPECT_EQ(s->runs_by_strategy, (std::array<std::int64_t, 3>{2, 1, 0}));
  EXPECT_EQ(s->runs_recorded, 3);
  EXPECT_EQ(s->runs_possible, 18);
  ASSERT_EQ(s->duplicates.size(), 1u);
  EXPECT_EQ(s->duplicates[0].ids, (std::vector<std::string>{"FA-1", "FA-2"}));
  const Sha256Bytes content = case_content_digest(one);
  EXPECT_EQ(s->duplicates[0].content, to_hex(content.data(), content.size()));
  EXPECT_EQ(s->duplicate_cases, 2u);
}

TEST(ArchiveStats, EmptyArchiveHasNoUnits) {
  auto a = Archive::open(stats_temp_db("empty"), Archive::Mode::Create);
  ASSERT_TRUE(a) << a.error().message;
  auto s = archive_stats(*a);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->cases, 0);
  EXPECT_TRUE(s->cases_by_mechanism.empty());
  EXPECT_EQ(s->units, 0u);
  EXPECT_FALSE(s->largest_unit);
  EXPECT_EQ(s->runs_recorded, 0);
  EXPECT_EQ(s->runs_possible, 0);
  EXPECT_TRUE(s->duplicates.empty());
  EXPECT_EQ(s->duplicate_cases, 0u);
}
