#include "serve/pool.h"

namespace failmap::serve {

bool Batch::wait_for(std::chrono::milliseconds d) {
  std::unique_lock lock(m_mu);
  return m_done_cv.wait_for(lock, d, [&] { return m_remaining == 0; });
}

void Batch::finish_one() {
  std::lock_guard lock(m_mu);
  if (--m_remaining == 0) m_done_cv.notify_all();
}

GradingPool::GradingPool(unsigned jobs, SandboxMode mode, SandboxLimits limits, std::size_t capacity)
    : m_mode(mode), m_capacity(capacity), m_pool(jobs, mode, limits, jobs) {  // (m_pool is declared after the queue)
  m_feeder = std::thread([this] { feed(); });
}

GradingPool::~GradingPool() {
  {
    std::lock_guard lock(m_mu);
    m_stopping = true;
  }
  m_cv.notify_all();
  m_feeder.join();
}

bool GradingPool::submit(const std::shared_ptr<Batch>& b) {
  {
    std::lock_guard lock(m_mu);
    if (m_waiting + m_pool.queued() + b->items.size() > m_capacity) return false;
    {
      std::lock_guard block(b->m_mu);
      b->m_remaining = b->items.size();
    }
    m_batches.emplace_back(b, 0);
    m_waiting += b->items.size();
  }
  m_cv.notify_all();
  return true;
}

std::size_t GradingPool::depth() const {
  std::lock_guard lock(m_mu);
  return m_waiting + m_pool.queued();
}

PoolCounters GradingPool::counters() const {
  std::lock_guard lock(m_mu);
  return m_counters;
}

void GradingPool::feed() {
  for (;;) {
    std::shared_ptr<Batch> b;
    std::size_t index = 0;
    {
      std::unique_lock lock(m_mu);
      m_cv.wait(lock, [&] { return !m_batches.empty() || m_stopping; });
      if (m_stopping) return;
      b = m_batches.front().first;
      index = m_batches.front().second;
      if (b->cancelled.load()) {
        const std::size_t dropped = b->items.size() - index;
        m_batches.pop_front();
        m_waiting -= dropped;
        m_counters.dropped += dropped;
        lock.unlock();
        for (std::size_t i = 0; i < dropped; ++i) b->finish_one();
        continue;
      }
    }
    // The candidate leaves this queue only when the pool takes it: until then
    // a cancelled batch can still drop it. The pool says nothing when it has
    // room again, so a full pool is polled.
    const Batch::Item& item = b->items[index];
    CandidateJob job{item.gc, item.p, [this, b, index](GradeResult r) { graded(b, index, r); }};
    if (!m_pool.try_submit(job)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    std::lock_guard lock(m_mu);
    m_batches.pop_front();
    --m_waiting;
    if (index + 1 < b->items.size()) m_batches.emplace_back(b, index + 1);  // its turn again after the others
  }
}

void GradingPool::graded(const std::shared_ptr<Batch>& b, std::size_t index, const GradeResult& r) {
  Batch::Item& item = b->items[index];
  item.line = result_line(item.p, item.gc->c.mechanism, item.source_sha256, item.gc->case_digest,
                          judged_members(r, m_mode), b->reward);
  item.verdict = r.verdict;
  if (r.error) item.error_kind = r.error->kind;
  {
    std::lock_guard lock(m_mu);
    ++m_counters.graded[r.verdict];
    // The worker that failed restarts itself for its next candidate (grade/sandbox.h).
    if (r.error && r.error->kind == "sandbox") ++m_counters.sandbox_restarts;
  }
  b->finish_one();
}

}  // namespace failmap::serve
