// The warm sandbox workers of `failmap serve`: `jobs` threads, each with one
// SandboxWorker kept across requests, taking candidates from one bounded
// queue. A batch is queued whole or not at all (no room: the caller answers
// 429), is answered in its own order, and can be cancelled (its client went
// away): its candidates still queued are dropped, not graded.
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
  /// Starts `jobs` threads, each with a warm SandboxWorker; at most
  /// `capacity` candidates wait in the queue.
  GradingPool(unsigned jobs, SandboxMode mode, SandboxLimits limits, std::size_t capacity);
  /// Grades what is queued, then stops the threads.
  ~GradingPool();
  GradingPool(const GradingPool&) = delete;
  GradingPool& operator=(const GradingPool&) = delete;

  /// Queues every item of `b`; false (nothing queued) when the queue has no
  /// room for all of them.
  bool submit(const std::shared_ptr<Batch>& b);
  /// Candidates queued and not yet taken by a worker.
  std::size_t depth() const;
  std::size_t capacity() const { return m_capacity; }
  PoolCounters counters() const;
  SandboxMode mode() const { return m_mode; }

 private:
  void work();

  SandboxMode m_mode;
  SandboxLimits m_limits;
  std::size_t m_capacity;
  mutable std::mutex m_mu;
  std::condition_variable m_cv;
  std::deque<std::pair<std::shared_ptr<Batch>, std::size_t>> m_queue;
  bool m_stopping = false;
  PoolCounters m_counters;
  std::vector<std::thread> m_threads;
};

}  // namespace failmap::serve
