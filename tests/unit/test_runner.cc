// run_all_cases (src/store/runner.h): every --jobs value gives the same sink
// calls in the same order and the same recorded rows as --jobs 1.
#include <gtest/gtest.h>

#include "support.h"

#include <filesystem>
#include <unistd.h>

#include "io/observation.h"
#include "store/archive_digests.h"
#include "store/runner.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

// A fresh archive file with `n` cases of the seed mechanism, N = 1..n.
fs::path make_archive(const std::string& name, int n) {
  fs::path p =
      ::failmap::testing_support::unit_temp_dir() / ("failmap-runner-" + std::to_string(getpid()) + "-" + name + ".db");
  fs::remove(p);
  auto a = Archive::open(p.string(), Archive::Mode::Create);
  EXPECT_TRUE(a) << a.error().message;
  const Mechanism* m = find_mechanism("gradient-accumulation-weighting");
  EXPECT_NE(m, nullptr);
  Transaction tx(a->db());
  EXPECT_TRUE(tx.begin());
  for (int i = 1; i <= n; ++i) {
    auto c = make_case(*m, "GEN-" + std::to_string(100000 + i), 1, {{"N", Value::integer(i)}});
    EXPECT_TRUE(c) << c.error().message;
    EXPECT_TRUE(a->insert_case(*c));
    EXPECT_TRUE(refresh_case_digest(*a, *c));  // as import leaves it: recording checks these digests
  }
  EXPECT_TRUE(tx.commit());
  return p;
}

// Runs every case with `jobs` threads; returns the sink's transcript and
// every recorded row (all columns) as text.
std::pair<std::string, std::string> run_with(const fs::path& db, unsigned jobs) {
  auto a = Archive::open(db.string(), Archive::Mode::ReadWrite);
  EXPECT_TRUE(a);
  RunAllOptions o;
  o.jobs = jobs;
  o.batch_cases = 7;  // several batches, the last one partial
  o.recorded_at = "2024-01-01T00:00:00Z";
  std::string transcript;
  std::size_t progress = 0;
  auto s = run_all_cases(
      *a, o,
      [&](const CaseRuns& cr) -> Status {
        for (const CaseRun& r : cr.runs) transcript += cr.record.id + " " + r.digest + " " + r.document + "\n";
        return ok_status();
      },
      [&](std::size_t n) { progress += n; });
  EXPECT_TRUE(s) << s.error().message;
  EXPECT_EQ(progress, 40u);
  std::string rows;
  auto ids = a->case_ids();
  EXPECT_TRUE(ids);
  for (const std::string& id : *ids) {
    auto runs = a->load_runs(id);
    EXPECT_TRUE(runs);
    for (const RunRecord& r : *runs)
      rows += r.case_id + "|" + std::string(strategy_name(r.strategy)) + "|" + r.observation + "|" +
              std::to_string(r.exit_status) + "|" + r.digest + "|" + r.recorded_at + "\n";
  }
  return {transcript, rows};
}

}  // namespace

TEST(Runner, ParallelRunsMatchSequentialByteForByte) {
  FAILMAP_NEEDS_REPAIRS();
  fs::path one = make_archive("one", 40), four = make_archive("four", 40);
  auto [t1, r1] = run_with(one, 1);
  auto [t4, r4] = run_with(four, 4);
  EXPECT_EQ(t1, t4);
  EXPECT_EQ(r1, r4);
  // 40 cases x 3 strategies, every document's digest is its SHA-256.
  EXPECT_EQ(std::count(r1.begin(), r1.end(), '\n'), 120);
  // N = 1, broken strategy: SHA-256 of the Python reference's output for
  // FA-98921 (the same fixtures), as tests/e2e/archive_options.sh checks.
  EXPECT_NE(t1.find("GEN-100001 a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68 "), std::string::npos);
  fs::remove(one);
  fs::remove(four);
}

TEST(Runner, SinkErrorStopsAndRecordsNothing) {
  FAILMAP_NEEDS_REPAIRS();
  fs::path db = make_archive("stop", 10);
  {
    auto a = Archive::open(db.string(), Archive::Mode::ReadWrite);
    ASSERT_TRUE(a);
    RunAllOptions o;
    o.jobs = 2;
    o.batch_cases = 3;
    int calls = 0;
    auto s = run_all_cases(*a, o, [&](const CaseRuns&) -> Status {
      return ++calls == 5 ? Status(input_error("stop here")) : ok_status();
    });
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "stop here");
    EXPECT_EQ(calls, 5);
  }
  auto a = Archive::open(db.string(), Archive::Mode::ReadOnly);
  ASSERT_TRUE(a);
  auto runs = a->load_runs("GEN-100001");
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
  fs::remove(db);
}

// The runs of `failmap run CASE`: in the order asked, recorded with the time
// given, and refused with nothing recorded for a case edited outside failmap.
// The broken run's document digest is sha256 of what `failmap reference
// GEN-100001 --strategy broken` prints under python3, trailing newline
// dropped; its exit status is that script's (1: checks failed).
TEST(Runner, RunStrategiesRecordsInTheOrderAskedAndRefusesACaseChangedOutsideFailmap) {
  fs::path db = make_archive("strategies", 1);
  const std::string broken_digest = "a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68";
  {
    auto a = Archive::open(db.string(), Archive::Mode::ReadWrite);
    ASSERT_TRUE(a);
    auto c = a->load_case("GEN-100001");
    ASSERT_TRUE(c && *c);
    auto runs =
        run_strategies(*a, **c, {StrategyKind::Unsuccessful, StrategyKind::Broken}, true, "2024-01-02T03:04:05Z");
    ASSERT_TRUE(runs) << runs.error().message;
    ASSERT_EQ(runs->records.size(), 2u);
    ASSERT_EQ(runs->outcomes.size(), 2u);
    EXPECT_EQ(runs->records[0].strategy, StrategyKind::Unsuccessful);
    EXPECT_EQ(runs->records[1].strategy, StrategyKind::Broken);
    EXPECT_EQ(runs->records[1].digest, broken_digest);
    EXPECT_EQ(runs->records[1].exit_status, 1);
    EXPECT_EQ(runs->records[1].digest, observation_digest(runs->records[1].observation));
    auto stored = a->load_runs("GEN-100001");
    ASSERT_TRUE(stored);
    ASSERT_EQ(stored->size(), 2u);
    for (const RunRecord& r : *stored) {
      EXPECT_EQ(r.recorded_at, "2024-01-02T03:04:05Z");
      if (r.strategy == StrategyKind::Broken) {
        EXPECT_EQ(r.digest, broken_digest);
      }
    }
    ASSERT_TRUE(a->db().exec("UPDATE cases SET variant = 2 WHERE id = 'GEN-100001'"));
    auto edited = a->load_case("GEN-100001");
    ASSERT_TRUE(edited && *edited);
    auto refused = run_strategies(*a, **edited, {StrategyKind::Broken}, true, "2025-01-01T00:00:00Z");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("Nothing was recorded."), std::string::npos) << refused.error().message;
    // Without recording, the same case still runs.
    auto unrecorded = run_strategies(*a, **edited, {StrategyKind::Broken}, false, "2025-01-01T00:00:00Z");
    ASSERT_TRUE(unrecorded);
    EXPECT_EQ(unrecorded->records[0].digest, broken_digest);
  }
  auto a = Archive::open(db.string(), Archive::Mode::ReadOnly);
  ASSERT_TRUE(a);
  auto stored = a->load_runs("GEN-100001");
  ASSERT_TRUE(stored);
  for (const RunRecord& r : *stored) EXPECT_EQ(r.recorded_at, "2024-01-02T03:04:05Z");
  fs::remove(db);
}
