// The grading queue of `failmap serve` in front of the engine's pool of warm
// sandbox workers (grade/grading.h CandidatePool, the one `failmap grade`
// grades on): requests' candidates wait in one bounded queue here, and a
// feeder hands them to the pool, which holds at most one more per worker.
// The feeder takes one candidate of each waiting batch in turn (round
// robin), so a single prediction waits for about one candidate per batch
// ahead of it, not for every candidate queued before it. A batch is queued
// whole or not at all (no room: the caller answers 429), is answered in its
// own order, and can be cancelled (its client went away): its candidates
// still waiting here are dropped, not graded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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
  };
  std::vector<Item> items;
  RewardMode reward = RewardMode::Graded;
  std::atomic<bool> cancelled{false};

  /// Waits at most `d` for every item to be graded or dropped; true when done.
  bool wait_for(std::chrono::milliseconds d);

 private:
  friend class GradingPool;
  std::mutex m_mu;
  std::condition_variable m_done_cv;
  std::size_t m_remaining = 0;
  void finish_one();
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
  /// `capacity` candidates wait.
  GradingPool(unsigned jobs, SandboxMode mode, SandboxLimits limits, std::size_t capacity);
  /// Stops the feeder (candidates still waiting are not graded) and waits
  /// for those on the workers.
  ~GradingPool();
  GradingPool(const GradingPool&) = delete;
  GradingPool& operator=(const GradingPool&) = delete;

  /// Queues every item of `b`; false (nothing queued) when the queue has no
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
  mutable std::mutex m_mu;
  std::condition_variable m_cv;
  std::deque<std::pair<std::shared_ptr<Batch>, std::size_t>> m_batches;  // waiting batches, each with its next item
  std::size_t m_waiting = 0;  // candidates of m_batches not yet handed to the pool
  bool m_stopping = false;
  PoolCounters m_counters;
  // Destroyed before the members above: it waits for the running jobs, whose callbacks use them.
  CandidatePool m_pool;
  std::thread m_feeder;
};

}  // namespace failmap::serve
