// The record of gradings as `failmap serve --record` uses it (serve/pool.h
// GradingRecorder), over a cache held in memory: a fresh grading is kept and
// committed, then recalled with the bytes of its fresh line; a record that
// judges otherwise is refused; a machine-dependent result is not kept; a
// commit the cache refuses (the archive busy) is logged, counted and kept for
// the next; what is kept when the recorder stops is committed.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>

#include "encoding/sha256.h"
#include "grade/grading.h"
#include "serve/pool.h"
#include "support.h"

namespace failmap {
namespace {

using serve::Batch;
using serve::GradingRecorder;
using testing_support::seed_case;

// Keyed by case digest and source; finish() fails with Kind::Busy while
// `busy` is set, the rows record() was given then kept for the next finish().
class MemoryCache final : public GradingCache {
 public:
  Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                          const std::string& settings) override {
    EXPECT_EQ(settings, "{\"settings\":1}");
    auto it = rows.find(case_digest + "|" + source_sha256);
    if (it == rows.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                const std::string& judged) override {
    EXPECT_EQ(settings, "{\"settings\":1}");
    pending[case_digest + "|" + source_sha256] = judged;
    return ok_status();
  }
  Status finish() override {
    ++finishes;
    if (busy) return Error{"the archive is busy (test)", Error::Kind::Busy};
    for (auto& [k, v] : pending) rows[k] = v;
    pending.clear();
    return ok_status();
  }
  std::map<std::string, std::string> rows, pending;
  bool busy = false;
  int finishes = 0;
};

const char* k_unresolved = "def solve(batch_sizes, target):\n    return sum(s for s in batch_sizes if s == target)\n";

// A commit period the tests never reach: every commit is the test's own.
constexpr std::chrono::milliseconds k_never = std::chrono::hours(24);

SandboxMode test_mode() { return sandbox_unavailable() ? unnamespaced_mode() : SandboxMode::Bubblewrap; }

// The candidate graded now on a pool of one worker.
GradeResult grade_now(const GradingCase& gc, const char* source) {
  CandidatePool pool(1, test_mode(), SandboxLimits{}, 1);
  std::mutex mu;
  std::condition_variable cv;
  std::optional<GradeResult> out;
  CandidateJob job;
  job.gc = &gc;
  job.prediction.source = source;
  job.done = [&](GradeResult r) {
    std::lock_guard lock(mu);
    out = std::move(r);
    cv.notify_all();
  };
  EXPECT_TRUE(pool.submit(std::move(job)));
  std::unique_lock lock(mu);
  cv.wait_for(lock, std::chrono::seconds(60), [&] { return out.has_value(); });
  return out.value_or(GradeResult{});
}

Batch::Item item_of(const GradingCase& gc, const char* source, int sample) {
  Batch::Item item;
  item.gc = &gc;
  item.p.case_id = "FA-98921";
  item.p.model = "m";
  item.p.sample = sample;
  item.p.line = static_cast<std::uint64_t>(sample) + 1;
  item.p.source = source;
  item.source_sha256 = sha256_hex(source);
  return item;
}

TEST(ServeRecord, AFreshGradingIsCommittedThenRecalledWithTheSameBytes) {
  auto gc = prepare_grading_case(seed_case(), std::string(64, 'a'), 0);
  ASSERT_TRUE(gc);
  const GradeResult r = grade_now(*gc, k_unresolved);
  ASSERT_EQ(r.verdict, "unresolved");
  const Json judged = judged_members(r, test_mode());
  MemoryCache cache;
  std::vector<std::string> log;
  std::mutex log_mu;
  auto logger = [&](const std::string& line) {
    std::lock_guard lock(log_mu);
    log.push_back(line);
  };
  const Batch::Item fresh = item_of(*gc, k_unresolved, 0);
  const std::string fresh_line =
      result_line(fresh.p, gc->c.mechanism, fresh.source_sha256, gc->case_digest, judged, RewardMode::Binary);
  {
    GradingRecorder recorder(cache, "{\"settings\":1}", test_mode(), logger, k_never);
    Batch::Item first = item_of(*gc, k_unresolved, 0);
    EXPECT_FALSE(recorder.recall(first, RewardMode::Binary));  // nothing recorded yet
    recorder.keep(first, r, judged);
    // Kept but not committed: recalled from memory already.
    Batch::Item again = item_of(*gc, k_unresolved, 0);
    EXPECT_TRUE(recorder.recall(again, RewardMode::Binary));
    EXPECT_EQ(again.line, fresh_line);
    // The archive busy: the commit fails, is logged and counted, the grading kept.
    cache.busy = true;
    EXPECT_FALSE(recorder.commit());
    EXPECT_EQ(recorder.counters().errors, 1u);
    EXPECT_EQ(recorder.counters().recorded, 0u);
    EXPECT_TRUE(cache.rows.empty());
    cache.busy = false;
    ASSERT_TRUE(recorder.commit());
    EXPECT_EQ(recorder.counters().recorded, 1u);
    ASSERT_EQ(cache.rows.size(), 1u);
    EXPECT_EQ(cache.rows.begin()->first, std::string(64, 'a') + "|" + fresh.source_sha256);
    EXPECT_EQ(cache.rows.begin()->second, dump_compact(judged));
  }
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0],
            "serve --record: could not record 1 grading(s): the archive is busy (another process held its write lock "
            "for the whole wait, FAILMAP_BUSY_TIMEOUT); kept, tried again with the next commit");

  // A recorder of its own (as after a restart) recalls the committed grading:
  // the bytes of the fresh line, the verdict, nothing run.
  GradingRecorder recorder(cache, "{\"settings\":1}", test_mode(), logger, k_never);
  Batch::Item second = item_of(*gc, k_unresolved, 0);
  ASSERT_TRUE(recorder.recall(second, RewardMode::Binary));
  EXPECT_EQ(second.line, fresh_line);
  EXPECT_EQ(second.verdict, "unresolved");
  EXPECT_TRUE(second.recalled);
  EXPECT_EQ(recorder.counters().recalled, 1u);

  // Edited behind failmap's back: refused (the candidate is to be graded anew), logged.
  std::string& stored = cache.rows.begin()->second;
  const auto at = stored.find("\"verdict\":\"unresolved\"");
  ASSERT_NE(at, std::string::npos);
  stored.replace(at, 22, "\"verdict\":\"resolved\"");
  Batch::Item third = item_of(*gc, k_unresolved, 0);
  EXPECT_FALSE(recorder.recall(third, RewardMode::Binary));
  EXPECT_TRUE(third.line.empty());
  EXPECT_FALSE(third.recalled);
  EXPECT_EQ(recorder.counters().refused, 1u);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NE(log[1].find("field 'verdict': stored \"resolved\", recomputed \"unresolved\" — graded anew, the record "
                        "replaced"),
            std::string::npos)
      << log[1];
}

TEST(ServeRecord, AMachineDependentResultOrACaseWithoutDigestIsNotKept) {
  auto gc = prepare_grading_case(seed_case(), std::string(64, 'b'), 0);
  auto no_digest = prepare_grading_case(seed_case(), "", 0);
  ASSERT_TRUE(gc && no_digest);
  MemoryCache cache;
  GradingRecorder recorder(cache, "{\"settings\":1}", test_mode(), {}, k_never);
  for (const char* kind : {"timeout", "memory", "sandbox"}) {
    GradeResult timeout;
    timeout.verdict = "error";
    timeout.error = GradeError{kind, "the candidate ran out"};
    recorder.keep(item_of(*gc, k_unresolved, 0), timeout, judged_members(timeout, test_mode()));
  }
  GradeResult syntax;
  syntax.verdict = "error";
  syntax.error = GradeError{"syntax", "invalid syntax"};
  recorder.keep(item_of(*no_digest, k_unresolved, 1), syntax, judged_members(syntax, test_mode()));
  ASSERT_TRUE(recorder.commit());
  EXPECT_TRUE(cache.rows.empty());
  EXPECT_TRUE(cache.pending.empty());
  EXPECT_EQ(recorder.counters().recorded, 0u);
  // A syntax error depends on the source only: kept.
  recorder.keep(item_of(*gc, k_unresolved, 2), syntax, judged_members(syntax, test_mode()));
  ASSERT_TRUE(recorder.commit());
  EXPECT_EQ(cache.rows.size(), 1u);
  EXPECT_EQ(recorder.counters().recorded, 1u);
}

TEST(ServeRecord, WhatIsKeptIsCommittedWhenTheRecorderStops) {
  auto gc = prepare_grading_case(seed_case(), std::string(64, 'c'), 0);
  ASSERT_TRUE(gc);
  MemoryCache cache;
  GradeResult syntax;
  syntax.verdict = "error";
  syntax.error = GradeError{"syntax", "invalid syntax"};
  {
    GradingRecorder recorder(cache, "{\"settings\":1}", test_mode(), {}, k_never);
    recorder.keep(item_of(*gc, k_unresolved, 0), syntax, judged_members(syntax, test_mode()));
    EXPECT_TRUE(cache.rows.empty());  // nothing committed before the period, 256 gradings or the end
  }
  ASSERT_EQ(cache.rows.size(), 1u);
  EXPECT_EQ(cache.rows.begin()->second, dump_compact(judged_members(syntax, test_mode())));
}

}  // namespace
}  // namespace failmap
