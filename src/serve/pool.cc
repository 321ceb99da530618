#include "serve/pool.h"

namespace failmap::serve {

namespace {

// A commit at once when this many gradings wait, else every commit period.
constexpr std::size_t k_commit_batch = 256;
// How long a lookup waits for the cache's lock (held through a commit that
// waits for another writer) before the candidate is graded anew instead.
constexpr auto k_lookup_wait = std::chrono::milliseconds(250);

}  // namespace

bool Batch::wait_item(std::size_t i, std::chrono::milliseconds d) {
  std::unique_lock lock(m_mu);
  return m_done_cv.wait_for(lock, d, [&] { return m_finished[i] != 0; });
}

std::string Batch::take_line(std::size_t i) {
  std::lock_guard lock(m_mu);
  std::string line = std::move(items[i].line);
  items[i].line = std::string();
  m_held -= std::min(m_held, line.size());
  return line;
}

std::size_t Batch::held() const {
  std::lock_guard lock(m_mu);
  return m_held;
}

void Batch::finish(std::size_t i) {
  std::lock_guard lock(m_mu);
  m_finished[i] = 1;
  m_held += items[i].line.size();
  m_done_cv.notify_all();
}

GradingRecorder::GradingRecorder(GradingCache& cache, std::string settings, SandboxMode mode,
                                 std::function<void(const std::string&)> log, std::chrono::milliseconds commit_period)
    : m_cache(cache), m_settings(std::move(settings)), m_mode(mode), m_log(std::move(log)), m_period(commit_period) {
  m_committer = std::thread([this] { run_committer(); });
}

GradingRecorder::~GradingRecorder() {
  {
    std::lock_guard lock(m_mu);
    m_stopping = true;
  }
  m_cv.notify_all();
  m_committer.join();
  (void)commit();  // a failure is logged and counted
}

void GradingRecorder::run_committer() {
  std::unique_lock lock(m_mu);
  bool failed = false;
  while (!m_stopping) {
    // After a failed commit the next waits a whole period, whatever is kept.
    m_cv.wait_for(lock, m_period, [&] { return m_stopping || (!failed && m_kept.size() >= k_commit_batch); });
    if (m_stopping) break;
    if (m_kept.empty()) continue;
    lock.unlock();
    failed = !commit();
    lock.lock();
  }
}

bool GradingRecorder::recall(Batch::Item& item, RewardMode reward) {
  const std::string& digest = item.gc->case_digest;
  if (digest.empty()) return false;
  const Key key{digest, item.source_sha256};
  std::optional<std::string> stored;
  {
    std::lock_guard lock(m_mu);
    if (auto it = m_kept.find(key); it != m_kept.end()) stored = it->second;
    else if (auto c = m_committing.find(key); c != m_committing.end()) stored = c->second;
  }
  if (!stored) {
    std::unique_lock lock(m_cache_mu, std::defer_lock);
    if (!lock.try_lock_for(k_lookup_wait)) return false;  // a commit waits for the archive: grade anew
    auto hit = m_cache.find(digest, item.source_sha256, m_settings);
    lock.unlock();
    if (!hit) {
      {
        std::lock_guard count(m_mu);
        ++m_counters.errors;
      }
      log("serve --record: looking up a recorded grading: " + hit.error().message + " (graded anew)");
      return false;
    }
    if (!*hit) return false;
    stored = std::move(**hit);
  }
  // Judged again by the code that judges a fresh grading: a record edited
  // behind failmap's back is graded anew (and replaced), never served.
  auto r = judge_recorded(
      *item.gc, *stored, m_mode,
      "the archive's record of the grading of source " + item.source_sha256 + " against case " + item.p.case_id);
  if (!r) {
    {
      std::lock_guard count(m_mu);
      ++m_counters.refused;
    }
    log("warning: " + r.error().message + " — graded anew, the record replaced");
    return false;
  }
  item.line = result_line(item.p, item.gc->c.mechanism, item.source_sha256, digest, judged_members(*r, m_mode), reward);
  item.verdict = r->verdict;
  if (r->error) item.error_kind = r->error->kind;
  item.recalled = true;
  std::lock_guard count(m_mu);
  ++m_counters.recalled;
  return true;
}

void GradingRecorder::keep(const Batch::Item& item, const GradeResult& r, const Json& judged) {
  // A timeout, a memory or sandbox error may go otherwise on another machine
  // or a quieter one: such results are not recorded.
  if (item.gc->case_digest.empty() || machine_dependent(r)) return;
  std::string text = dump_compact(judged);
  bool full = false;
  {
    std::lock_guard lock(m_mu);
    m_kept[Key{item.gc->case_digest, item.source_sha256}] = std::move(text);
    full = m_kept.size() >= k_commit_batch;
  }
  if (full) m_cv.notify_all();
}

Status GradingRecorder::commit() {
  std::lock_guard one(m_commit_mu);
  {
    std::lock_guard lock(m_mu);
    for (auto& [key, judged] : m_kept) m_committing[key] = std::move(judged);
    m_kept.clear();
    if (m_committing.empty()) return ok_status();
  }
  // m_committing changes only under m_commit_mu, held here: read without m_mu.
  Status st = ok_status();
  {
    std::lock_guard cache(m_cache_mu);
    for (const auto& [key, judged] : m_committing) {
      st = m_cache.record(key.first, key.second, m_settings, judged);
      if (!st) break;
    }
    if (st) st = m_cache.finish();
  }
  std::size_t n = 0;
  {
    std::lock_guard lock(m_mu);
    n = m_committing.size();
    if (st) {
      m_counters.recorded += n;
    } else {
      ++m_counters.errors;
      for (auto& [key, judged] : m_committing) m_kept.emplace(key, std::move(judged));  // a newer grading wins
    }
    m_committing.clear();
  }
  if (!st)
    log("serve --record: could not record " + std::to_string(n) + " grading(s): " +
        (st.error().kind == Error::Kind::Busy
             ? "the archive is busy (another process held its write lock for the whole wait, FAILMAP_BUSY_TIMEOUT)"
             : st.error().message) +
        "; kept, tried again with the next commit");
  return st;
}

RecordCounters GradingRecorder::counters() const {
  std::lock_guard lock(m_mu);
  return m_counters;
}

GradingPool::GradingPool(unsigned jobs, SandboxMode mode, SandboxLimits limits, std::size_t capacity,
                         GradingRecorder* recorder)
    : m_mode(mode),
      m_capacity(capacity),
      m_recorder(recorder),
      m_pool(jobs, mode, limits, jobs) {  // (m_pool is declared after the queue)
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
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < b->items.size(); ++i)
    if (!b->items[i].recalled) todo.push_back(i);
  {
    std::lock_guard lock(m_mu);
    if (m_waiting + m_pool.queued() + todo.size() > m_capacity) return false;
    {
      std::lock_guard block(b->m_mu);
      b->m_finished.assign(b->items.size(), 0);
      for (std::size_t i = 0; i < b->items.size(); ++i)
        if (b->items[i].recalled) {
          b->m_finished[i] = 1;
          b->m_held += b->items[i].line.size();
        }
      b->m_todo = std::move(todo);
    }
    if (b->m_todo.empty()) return true;  // every item recalled: nothing to grade
    m_batches.emplace_back(b, 0);
    m_waiting += b->m_todo.size();
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
  std::size_t passed = 0;  // batches passed over in a row, holding too much of their answer
  for (;;) {
    std::shared_ptr<Batch> b;
    std::size_t pos = 0;  // in b->m_todo
    {
      std::unique_lock lock(m_mu);
      m_cv.wait(lock, [&] { return !m_batches.empty() || m_stopping; });
      if (m_stopping) return;
      b = m_batches.front().first;
      pos = m_batches.front().second;
      if (b->cancelled.load()) {
        m_batches.pop_front();
        m_waiting -= b->m_todo.size() - pos;
        m_counters.dropped += b->m_todo.size() - pos;
        lock.unlock();
        for (std::size_t k = pos; k < b->m_todo.size(); ++k) b->finish(b->m_todo[k]);
        continue;
      }
      if (b->held() > k_batch_held_bytes) {
        // Its client has yet to read what it holds: the others go first.
        m_batches.pop_front();
        m_batches.emplace_back(b, pos);
        if (++passed >= m_batches.size()) {
          passed = 0;
          m_cv.wait_for(lock, std::chrono::milliseconds(5));
        }
        continue;
      }
      passed = 0;
    }
    // The candidate leaves this queue only when the pool takes it: until then
    // a cancelled batch can still drop it, so the wait for room in the pool
    // is short and the batch is looked at again after it.
    const std::size_t index = b->m_todo[pos];
    const Batch::Item& item = b->items[index];
    CandidateJob job{item.gc, item.p, [this, b, index](GradeResult r) { graded(b, index, r); }};
    if (!m_pool.try_submit_for(job, std::chrono::milliseconds(5))) continue;
    std::lock_guard lock(m_mu);
    m_batches.pop_front();
    --m_waiting;
    if (pos + 1 < b->m_todo.size()) m_batches.emplace_back(b, pos + 1);  // its turn again after the others
  }
}

void GradingPool::graded(const std::shared_ptr<Batch>& b, std::size_t index, const GradeResult& r) {
  Batch::Item& item = b->items[index];
  const Json judged = judged_members(r, m_mode);
  item.line = result_line(item.p, item.gc->c.mechanism, item.source_sha256, item.gc->case_digest, judged, b->reward);
  if (m_recorder) m_recorder->keep(item, r, judged);
  item.verdict = r.verdict;
  if (r.error) item.error_kind = r.error->kind;
  {
    std::lock_guard lock(m_mu);
    ++m_counters.graded[r.verdict];
    // The worker that failed restarts itself for its next candidate (grade/sandbox.h).
    if (r.error && r.error->kind == "sandbox") ++m_counters.sandbox_restarts;
  }
  b->finish(index);
}

}  // namespace failmap::serve
