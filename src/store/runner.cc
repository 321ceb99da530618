#include "store/runner.h"

#include <algorithm>
#include <optional>

#include "core/parallel.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "io/observation.h"
#include "store/archive_digests.h"

namespace failmap {

namespace {

// How a refusal to record ends (check_field_digests, check_case_unchanged).
constexpr std::string_view k_nothing_recorded = "Nothing was recorded.";

// Writes the 64 lower-case hex digits of `d` into `out`, reusing its buffer.
void assign_hex(std::string& out, const Sha256Bytes& d) {
  out.resize(2 * d.size());
  write_hex(out.data(), d.data(), d.size());
}

// run_case into `out`, whose strings and vectors keep their capacity from
// the case it held before (no allocation per run once warm). With `record`,
// also each run's stored form (CaseRun::actuals). With `digests` (and
// `with_case_digests`), the case's field digests go there too.
Status run_case_into(const Case& c, bool with_case_digests, bool record, CaseRuns* out,
                     CaseDigests* digests = nullptr) {
  thread_local std::vector<RunDigestInput> inputs;
  thread_local ObservationFrame frame;  // the checks' labels and expected values, spelled once for 3 documents
  FAILMAP_TRY_ASSIGN(const Mechanism* m, case_mechanism(c));
  inputs.clear();
  frame.assign(c);
  for (StrategyKind k : k_all_strategies) {
    CaseRun& r = out->runs[static_cast<std::size_t>(k)];
    FAILMAP_TRY(run_strategy(c, *m, k, &r.outcome));
    r.document.clear();
    frame.append_document(r.document, r.outcome);
    r.digest_bytes = sha256_bytes(r.document);
    assign_hex(r.digest, r.digest_bytes);
    if (record) Archive::stored_actuals(c, r.outcome, r.document, &r.actuals);
    inputs.push_back(RunDigestInput{k, r.outcome.exit_status(), r.digest});
  }
  if (!with_case_digests) return ok_status();
  if (digests) {
    auto d = compute_case_digests(c, inputs, FieldDigests::Packed);
    if (!d) return input_error("case " + c.id + ": " + d.error().message);
    *digests = std::move(*d);
    out->case_digest = digests->case_digest_bytes;
    return ok_status();
  }
  auto text = case_digest_text(c, inputs);
  if (!text) return input_error("case " + c.id + ": " + text.error().message);
  out->case_digest = sha256_bytes(*text);
  return ok_status();
}

// One case's place in a batch: the case and its runs, or the error that
// stopped it. Slots are reused batch after batch.
struct Slot {
  CaseRuns runs;
  std::optional<Error> error;
  /// Recording a case without stored field digests (an archive from before
  /// schema 3): its stored case digest is checked on the writing thread.
  bool check_case_digest = false;
};

// While alive, SQLite does not check foreign keys on this connection
// (PRAGMA foreign_keys, which must be set outside a transaction).
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(Database& db) : m_db(db) {}
  Status begin() {
    FAILMAP_TRY(m_db.exec("PRAGMA foreign_keys=OFF"));
    m_off = true;
    return ok_status();
  }
  ~ForeignKeysOff() {
    if (m_off) (void)m_db.exec("PRAGMA foreign_keys=ON");
  }

 private:
  Database& m_db;
  bool m_off = false;
};

// True when the archive has no recorded run.
Result<bool> no_runs(Database& db) {
  FAILMAP_TRY_ASSIGN(auto st, db.prepare("SELECT NOT EXISTS (SELECT 1 FROM runs)"));
  FAILMAP_TRY(st.step());
  return st.column_int(0) != 0;
}

}  // namespace

Result<CaseRuns> run_case(const Case& c, bool with_case_digests) {
  CaseRuns out;
  FAILMAP_TRY(run_case_into(c, with_case_digests, false, &out));
  return out;
}

Status run_all_cases(Archive& archive, const RunAllOptions& options, const std::function<Status(const CaseRuns&)>& sink,
                     const ProgressFn& progress) {
  const std::size_t batch_size = std::max<std::size_t>(1, options.batch_cases);
  const Archive::CaseFields fields = options.record ? Archive::CaseFields::Record : Archive::CaseFields::Runs;
  // Read every case page through a memory map rather than a pread copy each.
  FAILMAP_TRY(archive.db().exec("PRAGMA mmap_size = 1073741824"));
  // Runs and case digests are written only for cases read in the same
  // write transaction (BEGIN IMMEDIATE: no other writer meanwhile), with the
  // recording made in it, so their foreign keys hold by construction and
  // SQLite's parent lookup per row is skipped. The page cache holds the
  // transaction's pages (up to 128 MiB) instead of spilling them to the WAL
  // before the commit writes them again. Into an archive without recorded
  // runs nearly every page written is new: a rollback journal writes each
  // once, where WAL writes it to the log at the commit and again at the
  // checkpoint (as import does into an archive without cases).
  ForeignKeysOff fk_off(archive.db());
  RollbackJournal journal(archive.db());
  Transaction tx(archive.db());
  std::int64_t recording = 0;
  if (options.record) {
    FAILMAP_TRY(fk_off.begin());
    FAILMAP_TRY(archive.db().exec("PRAGMA cache_size = -131072"));
    FAILMAP_TRY_ASSIGN(const bool empty, no_runs(archive.db()));
    if (empty) FAILMAP_TRY(journal.begin());
    FAILMAP_TRY(tx.begin());
    FAILMAP_TRY_ASSIGN(recording, archive.recording_id(FAILMAP_VERSION, options.recorded_at));
  }
  std::vector<Archive::RunRow> run_rows;
  std::vector<Archive::CaseDigestRow> digest_rows;
  // Records an evaluated batch and hands it to the sink, in id order; the
  // first error in id order wins (rows before it are written but the
  // transaction is never committed).
  auto write = [&](std::vector<Slot>& slots, std::size_t count) -> Status {
    std::size_t good = 0;
    for (; good < count && !slots[good].error; ++good)
      if (slots[good].check_case_digest)
        if (auto s = check_case_unchanged(archive, slots[good].runs.record, false, k_nothing_recorded); !s) {
          slots[good].error = s.error();
          break;
        }
    if (options.record) {
      run_rows.clear();
      digest_rows.clear();
      for (std::size_t i = 0; i < good; ++i) {
        const CaseRuns& cr = slots[i].runs;
        for (const CaseRun& r : cr.runs)
          run_rows.push_back(Archive::RunRow{cr.record.id, r.outcome.strategy, r.outcome.exit_status(), r.actuals,
                                             r.document, &r.digest_bytes});
        digest_rows.push_back(Archive::CaseDigestRow{cr.record.id, &cr.case_digest});
      }
      FAILMAP_TRY(archive.record_run_rows(run_rows.data(), run_rows.size(), recording));
      FAILMAP_TRY(archive.set_case_digest_rows(digest_rows.data(), digest_rows.size()));
    }
    for (std::size_t i = 0; i < good; ++i) {
      FAILMAP_TRY(sink(slots[i].runs));
      report_progress(progress, 1);
    }
    if (good < count)  // a field check of an evaluating thread named no archive query: advise here
      return advise_discard_if_unreadable(archive, slots[good].runs.record.id, *slots[good].error);
    return ok_status();
  };
  // A batch is read (raw bytes only) straight into the cases of its slots
  // and its texts on the calling thread, then decoded and evaluated on one
  // of `jobs` threads (core/parallel.h) while the calling thread writes the
  // batches before it and reads the ones after; a written batch's slots are
  // where a later batch is read to (every buffer is reused).
  struct Batch {
    std::vector<Slot> slots;
    std::vector<CaseRowTexts> texts;
    std::size_t count = 0;
  };
  struct Evaluated {};
  std::vector<Batch> spare;
  std::string last_id;  // of the last case read
  auto read = [&](Batch& b) {
    auto case_at = [&b](std::size_t i) -> Case& {
      if (i == b.slots.size()) b.slots.emplace_back();
      return b.slots[i].runs.record;
    };
    return archive.read_case_rows(last_id, batch_size, fields, case_at, &b.texts);
  };
  const std::string archive_path = archive.db().path();
  // Decodes, evaluates and formats the i-th case of batch `b`.
  auto evaluate = [&](Batch& b, std::size_t i) {
    thread_local Archive::DecodeCache cache;
    Slot& slot = b.slots[i];
    const CaseRowTexts& text = b.texts[i];
    slot.error.reset();
    if (auto s = Archive::decode_case_row(fields, text, archive_path, &slot.runs.record, &cache); !s) {
      slot.error = s.error();
      return;
    }
    thread_local CaseDigests digests;
    if (auto s = run_case_into(slot.runs.record, options.record, options.record, &slot.runs,
                               options.record ? &digests : nullptr);
        !s) {
      slot.error = s.error();
      return;
    }
    // Recording re-digests the case: content changed outside failmap since
    // it was digested is refused (its field digests no longer match), not
    // re-digested.
    slot.check_case_digest = options.record && text.row_field_digests_null;
    if (options.record && !slot.check_case_digest)
      if (auto s = check_field_digests(slot.runs.record, digests, text.row_field_digests, text.text_field_digests,
                                       archive_path + ": case " + slot.runs.record.id, k_nothing_recorded);
          !s) {
        slot.error = s.error();
        return;
      }
    slot.runs.text.clear();
    if (options.format) options.format(slot.runs, slot.runs.text);
  };
  ParallelOptions parallel;
  parallel.jobs = std::max(1u, options.jobs);
  parallel.ahead = 2 * std::size_t{parallel.jobs};  // batches evaluated ahead of the writes
  OrderedPipeline<Batch, Evaluated> pipeline(
      parallel,
      [&](Batch& b) {
        for (std::size_t i = 0; i < b.count; ++i) evaluate(b, i);
        return Evaluated{};
      },
      [&](Batch& b, Evaluated&&) -> Status {
        FAILMAP_TRY(write(b.slots, b.count));
        spare.push_back(std::move(b));
        return ok_status();
      });
  Status read_status = ok_status();
  for (;;) {
    Batch b;
    if (!spare.empty()) {
      b = std::move(spare.back());
      spare.pop_back();
    }
    auto n = read(b);
    if (!n) read_status = n.error();  // after the batches read before it
    if (!n || *n == 0) break;
    b.count = *n;
    last_id = b.slots[b.count - 1].runs.record.id;
    if (!pipeline.submit(std::move(b))) break;
  }
  FAILMAP_TRY(pipeline.finish());
  FAILMAP_TRY(read_status);
  if (options.record) return tx.commit();
  return ok_status();
}

Result<StrategyRuns> run_strategies(Archive& archive, const Case& c, const std::vector<StrategyKind>& strategies,
                                    bool record, const std::string& recorded_at) {
  StrategyRuns runs;
  for (StrategyKind k : strategies) {
    FAILMAP_TRY_ASSIGN(RunOutcome out, run_strategy(c, k));
    RunRecord r;
    r.case_id = c.id;
    r.strategy = out.strategy;
    r.observation = observation_document(c, out);
    r.digest = observation_digest(r.observation);
    r.exit_status = out.exit_status();
    r.failmap_version = FAILMAP_VERSION;
    r.recorded_at = recorded_at;
    runs.records.push_back(std::move(r));
    runs.outcomes.push_back(std::move(out));
  }
  if (!record) return runs;
  Transaction tx(archive.db());
  FAILMAP_TRY(tx.begin());
  // The case digest is refreshed below over the stored content: content
  // edited outside failmap since it was digested is refused, not re-digested.
  FAILMAP_TRY(check_case_unchanged(archive, c, strategies.size() < k_all_strategies.size(), k_nothing_recorded));
  FAILMAP_TRY_ASSIGN(std::int64_t recording, archive.recording_id(FAILMAP_VERSION, recorded_at));
  std::vector<Sha256Bytes> digests;
  std::vector<Archive::NewRun> news;
  digests.reserve(runs.records.size());
  for (const RunRecord& r : runs.records) digests.push_back(sha256_bytes(r.observation));
  for (std::size_t i = 0; i < runs.records.size(); ++i)
    news.push_back(Archive::NewRun{&runs.outcomes[i], runs.records[i].observation, &digests[i]});
  FAILMAP_TRY(archive.record_runs(c, news.data(), news.size(), recording));
  FAILMAP_TRY(refresh_case_digest(archive, c));
  FAILMAP_TRY(tx.commit());
  return runs;
}

}  // namespace failmap
