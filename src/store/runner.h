// Running every case of an archive with every strategy (`failmap run --all`),
// optionally on several threads and recording the runs.
//
// Cases are read in id order in batches; each batch is evaluated on one of
// `jobs` threads (core/parallel.h; each case independently: evaluation is a
// pure function of the case) while the calling thread hands the batches
// before it to the sink, records them in id order, and reads the next ones.
// Output and recorded rows are therefore identical for every `jobs` (same
// order, same bytes).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "core/progress.h"
#include "core/run.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "store/archive.h"

namespace failmap {

/// One strategy's run of a case, with its observation document and digest.
struct CaseRun {
  RunOutcome outcome;
  std::string document;        ///< observation document bytes, no trailing newline
  Sha256Bytes digest_bytes{};  ///< SHA-256 of `document`
  std::string digest;          ///< the same as 64 lower-case hex
  std::string actuals;         ///< when recording: Archive::stored_actuals() of the run
};

/// Every strategy's run of one case, indexed by StrategyKind.
struct CaseRuns {
  Case record;
  std::array<CaseRun, 3> runs;
  Sha256Bytes case_digest{};  ///< the case digest over these runs (schema/DIGESTS.md), when asked for
  std::string text;           ///< what RunAllOptions::format wrote for this case
};

/// How run_all_cases runs.
struct RunAllOptions {
  unsigned jobs = 1;        ///< evaluating threads, >= 1
  bool record = true;       ///< store each run (one transaction for all)
  std::string recorded_at;  ///< stored with every run (utc_now_iso8601())
  /// Cases read, evaluated and written per batch. Small enough that a
  /// batch's cases, texts and documents stay in a core's L2 cache between
  /// being read, evaluated and written: 256 took 20% less CPU than 1024
  /// (run --all --no-record, 100,000 cases, --jobs 1 and 2).
  std::size_t batch_cases = 256;
  /// Called on the evaluating threads (so it must be thread-safe) once per
  /// case after its runs: appends what the sink will print to `out`
  /// (CaseRuns::text, empty before), so that formatting is parallel too.
  std::function<void(const CaseRuns& runs, std::string& out)> format;
};

/// Evaluates all three strategies of every case (and options.format) and
/// calls `sink` for each case in id order on the calling thread. With `options.record`, every run
/// is recorded (replacing the previous one) with the case's refreshed
/// case digest (field digests, stored at import, do not depend on runs) in
/// one transaction that commits only when all cases succeeded: an error or a
/// kill leaves the archive as it was. A case is recorded only while its
/// field digests are the stored ones (check_field_digests; without stored
/// ones, check_case_unchanged): a case changed outside failmap is an error. Cases are read on the calling
/// thread, decoded and evaluated on `jobs` threads, and recorded a batch at a time with
/// multi-row INSERTs. Returns the first error in id order (a case that cannot be loaded
/// or evaluated, or sink's Error); `progress` gets the number of cases done.
Status run_all_cases(Archive& archive, const RunAllOptions& options, const std::function<Status(const CaseRuns&)>& sink,
                     const ProgressFn& progress = {});

/// Runs all three strategies of one case: outcomes, documents, digests, and
/// with `with_case_digests` the case digests over them (record is left empty).
Result<CaseRuns> run_case(const Case& c, bool with_case_digests);

/// The runs of some strategies of one case (`failmap run CASE`), in the
/// order they were asked for: `outcomes[i]` and `records[i]` belong to the
/// i-th strategy. A record holds the observation document (Python's bytes,
/// no trailing newline), its digest, exit status, FAILMAP_VERSION and the
/// time given to run_strategies.
struct StrategyRuns {
  std::vector<RunOutcome> outcomes;
  std::vector<RunRecord> records;
};

/// Runs `strategies` of `c` in order. With `record`, stores every run
/// (replacing the strategy's previous one) and refreshes the case digest in
/// one transaction, after checking that the case's stored content is what
/// it was digested over (check_case_unchanged; a subset of the strategies
/// keeps the other runs' digest inputs): a case edited outside failmap is
/// an error ending "Nothing was recorded." and the archive is unchanged.
/// Errors: a strategy that cannot run, an archive that cannot be written.
Result<StrategyRuns> run_strategies(Archive& archive, const Case& c, const std::vector<StrategyKind>& strategies,
                                    bool record, const std::string& recorded_at);

}  // namespace failmap
