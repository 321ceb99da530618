#include "store/runner.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "io/digest.h"
#include "io/observation.h"
#include "io/sha256.h"
#include "store/digests.h"

namespace failmap {

Result<CaseRuns> run_case(const Case& c, bool with_case_digests) {
  CaseRuns out;
  std::vector<RunDigestInput> inputs;
  for (StrategyKind k : k_all_strategies) {
    auto outcome = run_strategy(c, k);
    if (!outcome) return outcome.error();
    CaseRun& r = out.runs[static_cast<std::size_t>(k)];
    r.document = observation_document(c, *outcome);
    r.digest_bytes = sha256_bytes(r.document);
    r.digest = to_hex(r.digest_bytes.data(), r.digest_bytes.size());
    r.outcome = std::move(*outcome);
    inputs.push_back(RunDigestInput{k, r.outcome.exit_status(), r.digest});
  }
  if (!with_case_digests) return out;
  // Only the case digest: field digests cover the case alone, were stored
  // when it was imported and do not change when its runs do.
  auto text = case_digest_text(c, inputs);
  if (!text) return input_error("case " + c.id + ": " + text.error().message);
  out.case_digest = sha256_bytes(*text);
  return out;
}

namespace {

using Evaluated = std::vector<std::optional<Result<CaseRuns>>>;

// Evaluates batch[i] into results[i] on `jobs` threads: jobs - 1 workers
// start at once, the calling thread runs `meanwhile` (it writes the previous
// batch and reads the next) and then claims cases too, so exactly `jobs`
// threads are busy.
template <class Fn>
void evaluate_batch(const std::vector<Case>& batch, unsigned jobs, bool digests, Evaluated* results, Fn&& meanwhile) {
  results->assign(batch.size(), std::nullopt);
  if (jobs <= 1) {
    for (std::size_t i = 0; i < batch.size(); ++i) (*results)[i] = run_case(batch[i], digests);
    meanwhile();
    return;
  }
  constexpr std::size_t k_chunk = 16;  // cases a thread claims at a time
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (;;) {
      std::size_t begin = next.fetch_add(k_chunk);
      if (begin >= batch.size()) return;
      for (std::size_t i = begin; i < std::min(begin + k_chunk, batch.size()); ++i) (*results)[i] = run_case(batch[i], digests);
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(jobs - 1);
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  meanwhile();
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace

Status run_all_cases(Archive& archive, const RunAllOptions& options, const std::function<Status(const CaseRuns&)>& sink,
                     const ProgressFn& progress) {
  const std::size_t batch_size = std::max<std::size_t>(1, options.batch_cases);
  const Archive::CaseFields fields = options.record ? Archive::CaseFields::All : Archive::CaseFields::Runs;
  // Read every case page through a memory map rather than a pread copy each.
  if (auto s = archive.db().exec("PRAGMA mmap_size = 1073741824"); !s) return s;
  Transaction tx(archive.db());
  std::int64_t recording = 0;
  if (options.record) {
    if (auto s = tx.begin(); !s) return s;
    auto id = archive.recording_id(FAILMAP_VERSION, options.recorded_at);
    if (!id) return id.error();
    recording = *id;
  }
  // Hands an evaluated batch to the sink and records it, in id order.
  auto write = [&](std::vector<Case>& batch, Evaluated& results) -> Status {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      auto& r = *results[i];
      if (!r) return r.error();
      CaseRuns& cr = *r;
      cr.record = std::move(batch[i]);
      if (options.record) {
        std::array<Archive::NewRun, 3> runs;
        for (std::size_t k = 0; k < runs.size(); ++k)
          runs[k] = Archive::NewRun{&cr.runs[k].outcome, cr.runs[k].document, &cr.runs[k].digest_bytes};
        if (auto s = archive.record_runs(cr.record, runs.data(), runs.size(), recording); !s) return s;
        if (auto s = archive.set_case_digest(cr.record.id, cr.case_digest); !s) return s;
      }
      if (auto s = sink(cr); !s) return s;
      report_progress(progress, 1);
    }
    batch.clear();
    results.clear();
    return ok_status();
  };
  auto first = archive.cases_for_runs("", batch_size, fields);
  if (!first) return first.error();
  std::vector<Case> batch = std::move(*first), done;
  Evaluated results, done_results;
  while (!batch.empty()) {
    // Evaluate this batch while the previous one is written and the next read.
    Result<std::vector<Case>> upcoming = std::vector<Case>{};
    Status written = ok_status();
    evaluate_batch(batch, options.jobs, options.record, &results, [&] {
      written = write(done, done_results);
      if (written) upcoming = archive.cases_for_runs(batch.back().id, batch_size, fields);
    });
    if (!written) return written;
    done.swap(batch);
    done_results.swap(results);
    if (!upcoming) {
      if (auto s = write(done, done_results); !s) return s;  // its errors come first in id order
      return upcoming.error();
    }
    batch = std::move(*upcoming);
  }
  if (auto s = write(done, done_results); !s) return s;
  if (options.record) return tx.commit();
  return ok_status();
}

}  // namespace failmap
