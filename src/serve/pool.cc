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
    : m_mode(mode), m_limits(limits), m_capacity(capacity) {
  for (unsigned i = 0; i < jobs; ++i) m_threads.emplace_back([this] { work(); });
}

GradingPool::~GradingPool() {
  {
    std::lock_guard lock(m_mu);
    m_stopping = true;
  }
  m_cv.notify_all();
  for (auto& t : m_threads) t.join();
}

bool GradingPool::submit(const std::shared_ptr<Batch>& b) {
  {
    std::lock_guard lock(m_mu);
    if (m_queue.size() + b->items.size() > m_capacity) return false;
    {
      std::lock_guard block(b->m_mu);
      b->m_remaining = b->items.size();
    }
    for (std::size_t i = 0; i < b->items.size(); ++i) m_queue.emplace_back(b, i);
  }
  m_cv.notify_all();
  return true;
}

std::size_t GradingPool::depth() const {
  std::lock_guard lock(m_mu);
  return m_queue.size();
}

PoolCounters GradingPool::counters() const {
  std::lock_guard lock(m_mu);
  return m_counters;
}

void GradingPool::work() {
  SandboxWorker sandbox(m_mode, m_limits);
  for (;;) {
    std::shared_ptr<Batch> b;
    std::size_t index = 0;
    {
      std::unique_lock lock(m_mu);
      m_cv.wait(lock, [&] { return !m_queue.empty() || m_stopping; });
      if (m_queue.empty()) return;
      b = std::move(m_queue.front().first);
      index = m_queue.front().second;
      m_queue.pop_front();
      if (b->cancelled.load()) {
        ++m_counters.dropped;
        lock.unlock();
        b->finish_one();
        continue;
      }
    }
    Batch::Item& item = b->items[index];
    auto run = sandbox.run(item.p.source, item.gc->calls);
    GradeResult r = judge(*item.gc, run, m_limits);
    item.line = result_line(item.p, item.gc->c.mechanism, item.source_sha256, item.gc->case_digest,
                            judged_members(r, m_mode), false, b->reward);
    item.verdict = r.verdict;
    if (r.error) item.error_kind = r.error->kind;
    {
      std::lock_guard lock(m_mu);
      ++m_counters.graded[r.verdict];
      if (!run) ++m_counters.sandbox_restarts;
    }
    b->finish_one();
  }
}

}  // namespace failmap::serve
