// Spreading work over `--jobs` threads and consuming it in input order: the
// one primitive every parallel workflow uses (import, run --all, export, the
// site, verify, grade). Items are produced on up to `jobs` threads and
// consumed on the calling thread strictly in the order they were submitted,
// so what a workflow writes is the same bytes for any `jobs`.
//
// The contract, for OrderedPipeline and parallel_ordered alike:
// - Order. consume(i) runs on the calling thread, for every item in
//   submission (index) order, each once; produce(i) runs exactly once per
//   item consumed, on any of the producing threads, in no particular order,
//   before consume(i). Items after a stop may be produced and never consumed.
// - Threads. `jobs - 1` workers are started, and the calling thread produces
//   too when it has nothing to consume and the look-ahead is full, so at most
//   `jobs` threads produce (CallerRole::ProducesToo); or `jobs` workers
//   produce beside a calling thread that only reads and consumes
//   (CallerRole::ConsumesOnly: when consuming is a whole core's work, as
//   writing an archive is). With jobs <= 1 no thread is started: each item is
//   produced and consumed in turn, on the calling thread, before submit returns.
// - Claims. Workers claim `chunk` consecutive items at a time, oldest first.
// - Bounded look-ahead. At most `ahead` items (rounded up to whole chunks,
//   plus the chunk being filled) are submitted and not yet consumed; submit
//   blocks (consuming, producing or waiting) beyond that, so memory does not
//   grow with the input.
// - Per-thread state. make_state() is called once on each producing thread
//   (a worker when it starts, the calling thread before it first produces)
//   and the State it returns is passed to every produce on that thread: a
//   sandbox, an evaluator, buffers kept warm.
// - Stopping. consume returning an Error stops the pipeline: nothing more is
//   consumed, and that Error is what finish() returns. stop() (from consume
//   or between submits) stops it the same way with success. An Error of
//   ParallelOptions::poll stops it too. submit returns false once stopped.
// - Exceptions. An exception thrown by produce is rethrown on the calling
//   thread where its item would have been consumed (so the first in index
//   order wins, as on one thread); one thrown by consume or make_state leaves
//   submit or finish. Either way the workers are stopped and joined first.
// - Joining. finish() and the destructor join every worker; a worker finishes
//   the chunk it claimed, unclaimed ones are dropped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/result.h"

namespace failmap {

/// Whether the calling thread of an OrderedPipeline produces items too.
enum class CallerRole {
  ProducesToo,   ///< `jobs - 1` workers; the calling thread produces when it has nothing to consume
  ConsumesOnly,  ///< `jobs` workers; the calling thread reads and consumes only (jobs <= 1: it does all)
};

/// How an OrderedPipeline (or parallel_ordered) spreads its work.
struct ParallelOptions {
  /// Producing threads (`--jobs`); 0 counts as 1. See `caller`.
  unsigned jobs = 1;
  /// Whether the calling thread is one of the `jobs` producing threads.
  CallerRole caller = CallerRole::ProducesToo;
  /// Consecutive items a thread claims at a time (>= 1); 1 when jobs <= 1.
  std::size_t chunk = 1;
  /// Items submitted and not yet consumed, at most, rounded up to whole
  /// chunks; 0: four chunks per producing thread. Ignored when jobs <= 1.
  std::size_t ahead = 0;
  /// When set, called on the calling thread at each submit and at least every
  /// `poll_interval` while it waits for a worker: an Error (an interrupt)
  /// stops the pipeline and is what finish() returns.
  std::function<Status()> poll;
  /// How long the calling thread waits for a worker between two polls.
  std::chrono::milliseconds poll_interval{100};
};

/// The State of a pipeline whose producers keep none.
struct NoState {};

/// Produces submitted items on up to `jobs` threads and consumes them on the
/// calling thread in submission order (the contract is this header's opening
/// comment). Item and Output must be movable; State is made once per
/// producing thread by make_state (default-constructed when it is empty).
/// Not thread-safe itself: submit, stop and finish are called from the thread
/// that constructed it.
template <class Item, class Output, class State = NoState>
class OrderedPipeline {
 public:
  /// Makes one producing thread's state, on that thread.
  using MakeState = std::function<State()>;
  /// Produces an item's output; any producing thread, concurrently with others.
  using Produce = std::function<Output(Item& item, State& state)>;
  /// Consumes an item and its output; the calling thread, in order. An Error stops the pipeline.
  using Consume = std::function<Status(Item& item, Output&& output)>;

  /// Starts `jobs - 1` worker threads, or `jobs` with CallerRole::ConsumesOnly (none when jobs <= 1).
  OrderedPipeline(const ParallelOptions& options, MakeState make_state, Produce produce, Consume consume)
      : m_poll(options.poll),
        m_poll_interval(options.poll_interval),
        m_make_state(std::move(make_state)),
        m_produce(std::move(produce)),
        m_consume(std::move(consume)) {
    const unsigned jobs = options.jobs == 0 ? 1 : options.jobs;
    m_chunk = jobs <= 1 || options.chunk == 0 ? 1 : options.chunk;
    m_ahead = jobs <= 1 ? 1 : options.ahead == 0 ? 4 * std::size_t{jobs} * m_chunk : options.ahead;
    m_caller_produces = options.caller == CallerRole::ProducesToo;
    const unsigned workers = jobs <= 1 ? 0 : m_caller_produces ? jobs - 1 : jobs;
    m_workers.reserve(workers);
    for (unsigned t = 0; t < workers; ++t) m_workers.emplace_back([this] { work(); });
  }
  /// Without per-thread state.
  OrderedPipeline(const ParallelOptions& options, std::function<Output(Item&)> produce, Consume consume)
      : OrderedPipeline(
            options, MakeState(), [p = std::move(produce)](Item& item, State&) { return p(item); },
            std::move(consume)) {}

  /// Stops (unclaimed items are dropped, nothing more is consumed) and joins the workers.
  ~OrderedPipeline() { halt(); }
  OrderedPipeline(const OrderedPipeline&) = delete;
  OrderedPipeline& operator=(const OrderedPipeline&) = delete;

  /// Hands the next item to the producers, consuming what is ready in order;
  /// blocks while the look-ahead is full. False once the pipeline has
  /// stopped (the item is then dropped; finish() says why).
  bool submit(Item item) {
    if (m_stopped) return false;
    if (!polled()) return false;
    if (!m_filling) m_filling = spare_chunk();
    m_filling->items.push_back(std::move(item));
    if (m_filling->items.size() >= m_chunk) dispatch();
    advance(false);
    while (!m_stopped && m_pending >= m_ahead) advance(true);
    return !m_stopped;
  }

  /// Stops after the item being consumed: nothing more is consumed, and
  /// finish() returns success (unless an Error came first).
  void stop() { m_stop_requested = true; }

  /// Produces and consumes every item submitted (unless stopped), joins the
  /// workers and returns the Error that stopped the pipeline, else success.
  Status finish() {
    if (!m_stopped && m_filling && !m_filling->items.empty()) dispatch();
    while (!m_stopped && !m_in_flight.empty()) advance(true);
    halt();
    if (m_worker_failure) std::rethrow_exception(std::exchange(m_worker_failure, nullptr));
    return m_status;
  }

 private:
  // Consecutive items and their outputs; reused once consumed.
  struct Chunk {
    std::vector<Item> items;
    std::vector<std::optional<Output>> outputs;
    std::exception_ptr failure;  // what produce threw for items[failed_at]
    std::size_t failed_at = 0;
    bool done = false;  // under m_mu while workers run
  };

  std::unique_ptr<Chunk> spare_chunk() {
    if (m_spare.empty()) return std::make_unique<Chunk>();
    std::unique_ptr<Chunk> c = std::move(m_spare.back());
    m_spare.pop_back();
    return c;
  }

  // The calling thread: hands the chunk being filled to the workers (jobs <= 1: produces it).
  void dispatch() {
    Chunk* c = m_filling.get();
    c->outputs.resize(c->items.size());
    c->failure = nullptr;
    c->done = false;
    m_pending += c->items.size();
    m_in_flight.push_back(std::move(m_filling));
    if (m_workers.empty()) {
      produce_chunk(*c, caller_state());
      c->done = true;
      return;
    }
    std::lock_guard lock(m_mu);
    m_queue.push_back(c);
    m_work_changed.notify_one();
  }

  // The calling thread: consumes every produced chunk at the front of the
  // queue; with `block`, when none is ready, first produces an unclaimed one
  // or waits for a worker, until at least one was consumed or it stopped.
  void advance(bool block) {
    bool consumed = false;
    std::unique_lock lock(m_mu);
    for (;;) {
      if (m_worker_failure) {
        std::exception_ptr e = m_worker_failure;
        lock.unlock();
        halt();
        std::rethrow_exception(e);
      }
      if (!m_in_flight.empty() && m_in_flight.front()->done) {
        std::unique_ptr<Chunk> c = std::move(m_in_flight.front());
        m_in_flight.pop_front();
        lock.unlock();
        consume_chunk(std::move(c));
        if (m_stopped) return;
        consumed = true;
        lock.lock();
        continue;
      }
      if (consumed || !block || m_in_flight.empty()) return;
      if (m_caller_produces && !m_queue.empty()) {
        Chunk* c = m_queue.front();
        m_queue.pop_front();
        lock.unlock();
        produce_chunk(*c, caller_state());
        lock.lock();
        c->done = true;
        continue;
      }
      if (!m_poll) {
        m_done_changed.wait(lock);
        continue;
      }
      m_done_changed.wait_for(lock, m_poll_interval);
      lock.unlock();
      if (!polled()) return;
      lock.lock();
    }
  }

  // The calling thread: consumes a produced chunk in order; stops on an
  // Error or stop(), rethrows what produce threw.
  void consume_chunk(std::unique_ptr<Chunk> c) {
    m_pending -= c->items.size();
    for (std::size_t i = 0; i < c->items.size(); ++i) {
      if (c->failure && i == c->failed_at) {
        halt();
        std::rethrow_exception(c->failure);
      }
      Status s = m_consume(c->items[i], std::move(*c->outputs[i]));
      if (!s) m_status = std::move(s);
      if (!m_status || m_stop_requested) {
        halt();
        return;
      }
    }
    c->items.clear();
    c->outputs.clear();
    m_spare.push_back(std::move(c));
  }

  // Any producing thread; an exception stops the chunk at its item.
  void produce_chunk(Chunk& c, State& state) {
    for (std::size_t i = 0; i < c.items.size(); ++i) {
      try {
        c.outputs[i].emplace(m_produce(c.items[i], state));
      } catch (...) {
        c.failure = std::current_exception();
        c.failed_at = i;
        return;
      }
    }
  }

  State& caller_state() {
    if (!m_caller_state) m_caller_state.emplace(m_make_state ? m_make_state() : State());
    return *m_caller_state;
  }

  bool polled() {
    if (!m_poll) return true;
    Status s = m_poll();
    if (s) return true;
    m_status = std::move(s);
    halt();
    return false;
  }

  void work() {
    std::optional<State> state;
    try {
      state.emplace(m_make_state ? m_make_state() : State());
    } catch (...) {
      std::lock_guard lock(m_mu);
      if (!m_worker_failure) m_worker_failure = std::current_exception();
      m_done_changed.notify_one();
      return;
    }
    std::unique_lock lock(m_mu);
    for (;;) {
      m_work_changed.wait(lock, [&] { return m_quit || !m_queue.empty(); });
      if (m_quit) return;
      Chunk* c = m_queue.front();
      m_queue.pop_front();
      lock.unlock();
      produce_chunk(*c, *state);
      lock.lock();
      c->done = true;
      m_done_changed.notify_one();
    }
  }

  // The calling thread: stops for good; drops unclaimed chunks, joins the workers.
  void halt() {
    if (m_stopped) return;
    m_stopped = true;
    {
      std::lock_guard lock(m_mu);
      m_quit = true;
      m_queue.clear();
    }
    m_work_changed.notify_all();
    for (std::thread& t : m_workers) t.join();
    m_workers.clear();
    m_in_flight.clear();
    m_filling.reset();
  }

  std::function<Status()> m_poll;
  std::chrono::milliseconds m_poll_interval;
  MakeState m_make_state;
  Produce m_produce;
  Consume m_consume;
  std::size_t m_chunk = 1, m_ahead = 1;
  bool m_caller_produces = true;
  // The calling thread's alone.
  std::unique_ptr<Chunk> m_filling;                // being filled by submit
  std::deque<std::unique_ptr<Chunk>> m_in_flight;  // dispatched, in order, not yet consumed
  std::vector<std::unique_ptr<Chunk>> m_spare;     // consumed, for reuse
  std::size_t m_pending = 0;                       // items in m_in_flight
  std::optional<State> m_caller_state;
  Status m_status = ok_status();
  bool m_stopped = false, m_stop_requested = false;
  // Shared with the workers, under m_mu (and each Chunk's `done`).
  std::mutex m_mu;
  std::condition_variable m_work_changed, m_done_changed;
  std::deque<Chunk*> m_queue;  // dispatched, not yet claimed
  bool m_quit = false;
  std::exception_ptr m_worker_failure;  // what make_state threw on a worker
  std::vector<std::thread> m_workers;
};

/// Produces produce(i, state) for every i in [0, n) on up to `options.jobs`
/// threads and calls consume(i, T&&) on the calling thread for i = 0, 1, ...
/// in order (the contract is this header's opening comment). make_state()
/// -> State is called once per producing thread. consume returns a Status
/// (an Error stops and is returned) or a bool (false stops, with success).
/// Returns success, or the Error that stopped it.
template <class MakeState, class Produce, class Consume>
Status parallel_ordered(std::size_t n, const ParallelOptions& options, MakeState make_state, Produce produce,
                        Consume consume) {
  using State = std::invoke_result_t<MakeState&>;
  using T = std::invoke_result_t<Produce&, std::size_t, State&>;
  OrderedPipeline<std::size_t, T, State>* self = nullptr;
  OrderedPipeline<std::size_t, T, State> pipeline(
      options, std::move(make_state), [&produce](std::size_t& i, State& state) { return produce(i, state); },
      [&consume, &self](std::size_t& i, T&& out) -> Status {
        if constexpr (std::is_same_v<std::invoke_result_t<Consume&, std::size_t, T&&>, bool>) {
          if (!consume(i, std::move(out))) self->stop();
          return ok_status();
        } else {
          return consume(i, std::move(out));
        }
      });
  self = &pipeline;
  for (std::size_t i = 0; i < n; ++i)
    if (!pipeline.submit(i)) break;
  return pipeline.finish();
}

/// parallel_ordered without per-thread state: produce(i) -> T.
template <class Produce, class Consume>
Status parallel_ordered(std::size_t n, const ParallelOptions& options, Produce produce, Consume consume) {
  return parallel_ordered(
      n, options, [] { return NoState{}; }, [&produce](std::size_t i, NoState&) { return produce(i); },
      std::move(consume));
}

}  // namespace failmap
