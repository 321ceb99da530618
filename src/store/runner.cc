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
  out.digests.case_digest = sha256_hex(*text);
  return out;
}

namespace {

using Evaluated = std::vector<std::optional<Result<CaseRuns>>>;

// Evaluates batch[i] into results[i] on `jobs` threads while `meanwhile`
// runs on the calling thread (it reads the next batch).
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
  threads.reserve(jobs);
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(work);
  meanwhile();
  for (std::thread& t : threads) t.join();
}

}  // namespace

Status run_all_cases(Archive& archive, const RunAllOptions& options, const std::function<Status(const CaseRuns&)>& sink,
                     const ProgressFn& progress) {
  const std::size_t batch_size = std::max<std::size_t>(1, options.batch_cases);
  Transaction tx(archive.db());
  std::int64_t recording = 0;
  if (options.record) {
    if (auto s = tx.begin(); !s) return s;
    auto id = archive.recording_id(FAILMAP_VERSION, options.recorded_at);
    if (!id) return id.error();
    recording = *id;
  }
  auto first = archive.cases_after("", batch_size);
  if (!first) return first.error();
  std::vector<Case> batch = std::move(*first);
  Evaluated results;
  while (!batch.empty()) {
    Result<std::vector<Case>> upcoming = std::vector<Case>{};
    evaluate_batch(batch, options.jobs, options.record, &results, [&] { upcoming = archive.cases_after(batch.back().id, batch_size); });
    for (std::size_t i = 0; i < batch.size(); ++i) {
      auto& r = *results[i];
      if (!r) return r.error();
      CaseRuns& cr = *r;
      cr.record = std::move(batch[i]);
      if (options.record) {
        for (StrategyKind k : k_all_strategies) {
          const CaseRun& run = cr.runs[static_cast<std::size_t>(k)];
          if (auto s = archive.record_run(cr.record, run.outcome, run.document, run.digest_bytes, recording); !s)
            return s;
        }
        if (auto s = archive.set_case_digest(cr.record.id, cr.digests.case_digest); !s) return s;
      }
      if (auto s = sink(cr); !s) return s;
      report_progress(progress, 1);
    }
    if (!upcoming) return upcoming.error();
    batch = std::move(*upcoming);
  }
  if (options.record) return tx.commit();
  return ok_status();
}

}  // namespace failmap
