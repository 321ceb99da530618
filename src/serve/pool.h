// The grading queue of `failmap serve` in front of the engine's pool of warm
// sandbox workers (grade/grading.h CandidatePool): requests' candidates wait in one bounded queue here, and a
// feeder hands them to the pool, which holds at most one more per worker.
// The feeder takes one candidate of each waiting batch in turn (round
// robin), so a single prediction waits for about one candidate per batch
// ahead of it, not for every candidate queued before it. A batch is queued
// whole or not at all (no room: the caller answers 429), is answered in its
// own order, and can be cancelled (its client went away): its candidates
// still waiting here are dropped, not graded.
//
// With `failmap serve --record`, a GradingRecorder stands beside the queue:
// a prediction whose grading the archive recorded is answered from the
// record (judged again) before its batch is queued, and fresh gradings are
// handed to the record as they finish.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "grade/grader.h"
#include "grade/grading.h"
#include "grade/sandbox.h"

namespace failmap::serve {

/// One request's candidates and, as they are graded, their results lines.
struct Batch {
  struct Item {
    const GradingCase* gc = nullptr;  ///< owned by the caller's case cache, alive while the pool runs
    Prediction p;
    std::string source_sha256;
    std::string line;  ///< the results line once graded (without newline)
    std::string verdict;
    std::optional<std::string> error_kind;
    bool recalled = false;  ///< answered from the archive's record (GradingRecorder::recall), not queued
  };
  std::vector<Item> items;
  RewardMode reward = RewardMode::Graded;
  std::atomic<bool> cancelled{false};

  /// Waits at most `d` for item `i` to be graded, dropped or recalled; true
  /// when it is.
  bool wait_item(std::size_t i, std::chrono::milliseconds d);
  /// Item `i`'s results line (item `i` finished), moved out: its bytes no
  /// longer count as held, and the pool may hand more of this batch's
  /// candidates to the workers.
  std::string take_line(std::size_t i);
  /// Bytes of finished results lines not yet taken.
  std::size_t held() const;

 private:
  friend class GradingPool;
  mutable std::mutex m_mu;
  std::condition_variable m_done_cv;
  std::vector<char> m_finished;     // per item: graded, dropped or recalled
  std::size_t m_held = 0;           // bytes of the finished lines not taken
  std::vector<std::size_t> m_todo;  // the items not recalled, in order: those the pool grades
  void finish(std::size_t i);
};

/// The bytes of finished results lines one batch may hold, not yet written to
/// its client, before the pool hands it no more candidates (its other
/// candidates wait; other batches go on): an answer is written in order as
/// its lines finish, so a batch's memory stays near this bound plus the
/// lines of its candidates on the workers, whatever its candidates return.
inline constexpr std::size_t k_batch_held_bytes = 64u << 20;

/// Counters of the archive's record of gradings (for /metrics).
struct RecordCounters {
  std::uint64_t recalled = 0;  ///< predictions answered from the record
  std::uint64_t recorded = 0;  ///< gradings written to the record (committed)
  std::uint64_t refused = 0;   ///< records that judged otherwise now: graded anew, replaced
  std::uint64_t errors = 0;    ///< lookups and commits that failed (e.g. the archive busy); the replies stayed correct
};

/// The archive's record of gradings (grade/grading.h GradingCache,
/// schema/GRADING.md "Recording") as `failmap serve --record` uses it from
/// many threads: every call into the cache is made under one lock. Lookups
/// (recall, on a request's thread) never wait more than a moment for that
/// lock: a lookup that cannot have it grades the candidate anew. Fresh
/// gradings are handed over by the workers without touching the archive
/// (keep) and committed by a thread of its own every second, at once when
/// 256 are waiting, by commit() and on destruction, so that neither a worker
/// nor a request waits for the archive's write lock and the lock is held only
/// while a batch is written. A failed commit (the archive busy beyond
/// busy_timeout_ms(), another writer holding it) is logged and counted; its
/// gradings are kept and committed with the next.
class GradingRecorder {
 public:
  /// `cache` outlives the recorder; `settings` is grading_settings() of the
  /// service's options; `log` receives one line per failure or refused
  /// record (may be empty); the committing thread commits every
  /// `commit_period` (and at once when 256 gradings wait).
  GradingRecorder(GradingCache& cache, std::string settings, SandboxMode mode,
                  std::function<void(const std::string&)> log,
                  std::chrono::milliseconds commit_period = std::chrono::seconds(1));
  /// Stops the committing thread, then commits what is kept.
  ~GradingRecorder();
  GradingRecorder(const GradingRecorder&) = delete;
  GradingRecorder& operator=(const GradingRecorder&) = delete;

  /// Answers `item` from the record when it holds its grading and that
  /// grading judges the same now (grade/grader.h judge_recorded): sets line
  /// (the bytes a fresh grading's line has, with `reward`), verdict,
  /// error_kind and recalled, and returns true. False (the item is to be
  /// graded) when there is no record, the item's case has no case digest,
  /// the record judges otherwise (logged, counted; the fresh grading
  /// replaces it) or the lookup failed (logged, counted).
  bool recall(Batch::Item& item, RewardMode reward);
  /// Hands over a fresh grading of `item` (`judged`: judged_members of `r`)
  /// to be recorded, unless its result depends on the machine
  /// (grade/grader.h machine_dependent) or its case has no case digest.
  /// Never touches the archive.
  void keep(const Batch::Item& item, const GradeResult& r, const Json& judged);
  /// Commits every grading handed over, now. Errors: the cache's (the
  /// gradings stay kept, and are logged and counted).
  Status commit();
  RecordCounters counters() const;

 private:
  using Key = std::pair<std::string, std::string>;  // case digest, source SHA-256 (hex)
  void run_committer();
  void log(const std::string& line) const {
    if (m_log) m_log(line);
  }

  GradingCache& m_cache;
  std::string m_settings;
  SandboxMode m_mode;
  std::function<void(const std::string&)> m_log;
  std::chrono::milliseconds m_period;
  std::timed_mutex m_cache_mu;  // every call into m_cache
  std::mutex m_commit_mu;       // one commit at a time
  mutable std::mutex m_mu;      // the members below
  std::condition_variable m_cv;
  std::map<Key, std::string> m_kept;        // → judged members (compact JSON), not yet handed to the cache
  std::map<Key, std::string> m_committing;  // handed to the cache, its commit not yet confirmed
  RecordCounters m_counters;
  bool m_stopping = false;
  std::thread m_committer;
};

/// Counters of what the pool did (for /metrics).
struct PoolCounters {
  std::map<std::string, std::uint64_t> graded;  ///< candidates by verdict
  std::uint64_t dropped = 0;                    ///< queued candidates of cancelled batches, not graded
  std::uint64_t sandbox_restarts = 0;           ///< workers restarted after a failure (an `error` of kind `sandbox`)
};

class GradingPool {
 public:
  /// Starts a CandidatePool of `jobs` warm workers and the feeder; at most
  /// `capacity` candidates wait. Each fresh grading is handed to `recorder`
  /// (may be null; it outlives the pool).
  GradingPool(unsigned jobs, SandboxMode mode, SandboxLimits limits, std::size_t capacity,
              GradingRecorder* recorder = nullptr);
  /// Stops the feeder (candidates still waiting are not graded) and waits
  /// for those on the workers.
  ~GradingPool();
  GradingPool(const GradingPool&) = delete;
  GradingPool& operator=(const GradingPool&) = delete;

  /// Queues every item of `b` not already recalled (an item answered from
  /// the record is not graded); false (nothing queued) when the queue has no
  /// room for all of them.
  bool submit(const std::shared_ptr<Batch>& b);
  /// Candidates waiting for a worker (here and in the pool's queue).
  std::size_t depth() const;
  std::size_t capacity() const { return m_capacity; }
  PoolCounters counters() const;
  SandboxMode mode() const { return m_mode; }

 private:
  void feed();
  void graded(const std::shared_ptr<Batch>& b, std::size_t index, const GradeResult& r);

  SandboxMode m_mode;
  std::size_t m_capacity;
  GradingRecorder* m_recorder;
  mutable std::mutex m_mu;
  std::condition_variable m_cv;
  // Waiting batches, each with the position in its m_todo of its next item.
  std::deque<std::pair<std::shared_ptr<Batch>, std::size_t>> m_batches;
  std::size_t m_waiting = 0;  // candidates of m_batches not yet handed to the pool
  bool m_stopping = false;
  PoolCounters m_counters;
  // Destroyed before the members above: it waits for the running jobs, whose callbacks use them.
  CandidatePool m_pool;
  std::thread m_feeder;
};

}  // namespace failmap::serve
