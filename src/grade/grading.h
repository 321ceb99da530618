// The grading workflow (schema/GRADING.md): a predictions file graded into a
// results folder (graded on `jobs` threads of core/parallel.h, each with its
// own warm sandbox worker), shard folders merged into the folder of one run,
// and the pool of warm sandbox workers a long-running service grades
// candidates on.
//
// grade/ does not include store/: the archive reaches this code through two
// small interfaces the caller implements, CaseLookup (a case and its digest
// by id) and GradingCache (the archive's record of gradings). The library
// neither prints nor exits: refusals come back as problems or an Error, and
// progress and interrupts go through GradeHooks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "grade/grader.h"
#include "grade/sandbox.h"
#include "io/predictions.h"

namespace failmap {

/// Where the grading finds its cases: the archive, behind an interface.
class CaseLookup {
 public:
  virtual ~CaseLookup() = default;
  /// The case `id` and the archive's case digest of it (lower-case hex, ""
  /// when the archive keeps none), or nullopt when the archive has no such
  /// case. Errors: the store's.
  virtual Result<std::optional<std::pair<Case, std::string>>> find_case(const std::string& id) = 0;
  /// What a message calls the source of the cases, e.g. the archive's path.
  virtual std::string name() const = 0;
};

/// The archive's record of gradings (schema/GRADING.md "Recording"), keyed
/// by case digest, source SHA-256 and grading_settings(). Called from one
/// thread at a time.
class GradingCache {
 public:
  virtual ~GradingCache() = default;
  /// The recorded judged members (compact JSON text), or nullopt.
  virtual Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                                  const std::string& settings) = 0;
  /// Records the judged members of one grading.
  virtual Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                        const std::string& judged) = 0;
  /// Commits what record() has not committed yet.
  virtual Status finish() = 0;
};

/// Progress and interruption, supplied by the caller (each may be empty).
struct GradeHooks {
  std::function<void(std::size_t total)> start;  ///< once, with the number of predictions to grade
  std::function<void()> advance;                 ///< once per prediction written
  std::function<bool()> interrupted;             ///< polled; true stops the grading (nothing is written)
};

/// "I/N" with 1 <= I <= N <= 4096, digits only on both sides. Errors name
/// `--shard` and the text.
Result<std::pair<std::uint64_t, std::uint64_t>> parse_shard(const std::string& text);

/// The 0-based shard of a prediction among `n`: the first 8 bytes, big-endian,
/// of SHA-256 of case id ‖ NUL ‖ source SHA-256 (hex), modulo n
/// (schema/GRADING.md "Shards").
std::uint64_t shard_of(const std::string& case_id, const std::string& source_sha256, std::uint64_t n);

/// What a recorded grading depends on besides the case and the source (the
/// record's key, schema/GRADING.md "Recording"): failmap's version, the
/// driver's SHA-256, the held-out count, the limits (those of the case's
/// candidates: case_limits, so a calibrated budget is part of the key) and
/// the sandbox mode, as compact JSON.
/// Also the build's and the interpreter's identity (grade/identity.h).
/// Errors: the interpreter cannot be read.
Result<std::string> grading_settings(std::size_t held_out, const SandboxLimits& limits, SandboxMode mode);

/// Appends one prediction's entry to the predictions index (schema/GRADING.md
/// "summary.json", predictions_index_sha256): decimal line, case, model (NFC),
/// decimal sample and source SHA-256, separated by tabs, then a newline.
void append_index_entry(std::string& index, std::uint64_t line, const std::string& case_id, const std::string& model,
                        std::int64_t sample, const std::string& source_sha256);

/// One candidate to grade on a CandidatePool: its case (prepared once and
/// alive until `done` has been called) and its prediction.
struct CandidateJob {
  const GradingCase* gc = nullptr;
  Prediction prediction;
  /// Called on a worker thread with the judged result; must not throw.
  std::function<void(GradeResult)> done;
};

/// A fixed set of warm sandbox workers (SandboxWorker, one thread each) and
/// a bounded queue of candidates. Jobs run in any order; each job's `done`
/// says which it was. Destroying the pool drops the jobs still queued and
/// waits for the running ones.
class CandidatePool {
 public:
  /// `jobs` workers (>= 1) in `mode` with `limits`; at most `queue_limit`
  /// jobs wait (0: 8 per worker).
  CandidatePool(unsigned jobs, SandboxMode mode, const SandboxLimits& limits, std::size_t queue_limit = 0);
  ~CandidatePool();
  CandidatePool(const CandidatePool&) = delete;
  CandidatePool& operator=(const CandidatePool&) = delete;

  /// Queues a job, waiting while the queue is full. False when the pool is
  /// stopping (the job was not queued).
  bool submit(CandidateJob job);
  /// Queues a job only if there is room now; false when the queue is full or
  /// the pool is stopping.
  bool try_submit(CandidateJob& job);
  /// try_submit(), waiting up to `wait` for room: true as soon as a worker
  /// takes a job and this one is queued; false (job untouched) when the
  /// queue stayed full for `wait` or the pool is stopping.
  bool try_submit_for(CandidateJob& job, std::chrono::milliseconds wait);
  /// Drops every queued job (their `done` is not called) and returns how many.
  std::size_t drop_queued();
  /// Jobs waiting (not yet on a worker).
  std::size_t queued() const;
  /// The sandbox limits every candidate runs under.
  const SandboxLimits& limits() const;
  SandboxMode mode() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

/// What to grade and how (`failmap grade`'s options).
struct GradeOptions {
  std::string predictions;  ///< the predictions file (schema/GRADING.md "Predictions")
  std::string out;          ///< the output folder, new or empty
  unsigned jobs = 2;
  std::size_t held_out = 0;
  SandboxLimits limits;
  /// `--timeout calibrated:F`: the factor F. Each case graded then gets its
  /// own CPU budget, calibrated_budget(reference_cpu_seconds, F), measured
  /// before its candidates run; `limits` gives the rest (and the budget of
  /// none). None: every candidate gets limits.cpu_seconds.
  std::optional<double> calibrated;
  SandboxMode mode = SandboxMode::Bubblewrap;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> shard;  ///< (I, N), 1-based
  std::string split_dir;                                         ///< a split folder, or ""
  std::string split_name;                                        ///< its split to grade, with split_dir
  bool regrade = false;  ///< recall no recorded grading; grade anew and replace the record
  /// An Ed25519 private key (PEM) to sign manifest.json with (manifest.json.sig), or none.
  std::optional<std::filesystem::path> sign_key;
};

/// A finished grading or merge: summary.json as written, and its headline.
struct GradeOutcome {
  Json summary;
  std::size_t graded = 0;  ///< lines written to results.jsonl
  /// Input problems found before anything ran (each names file, line and
  /// field); when not empty, nothing was graded or written.
  std::vector<InputProblem> problems;
  /// What the caller may tell the user: records of the archive that judged
  /// otherwise now (graded anew, replaced).
  std::vector<std::string> warnings;
};

/// The default factor of `--timeout calibrated` and the largest F accepted.
inline constexpr double k_default_calibration_factor = 10.0;
inline constexpr double k_max_calibration_factor = 1000.0;

/// `--timeout calibrated[:F]`: F, or k_default_calibration_factor for plain
/// "calibrated". F is a decimal (std::from_chars, whatever the locale)
/// greater than 0 and at most k_max_calibration_factor; nullopt for any other
/// text, which the caller then reads as SECONDS.
std::optional<double> calibration_factor(std::string_view text);

/// The table of a summary.json (grade_predictions' or merge_gradings'), as
/// `failmap grade` prints it: a header, then per model its predictions,
/// resolved, partial, unresolved and errors, HELD-OUT with --held-out,
/// COVERAGE (cases/split_cases) with --split, and pass@1 with its 95%
/// interval to three decimals ("-" where there is none). Model names with
/// control characters escaped (encoding/control_chars.h); one line each, ending
/// in a newline.
std::string summary_table(const Json& summary);

/// The `timeout` of summary.json for `--timeout calibrated:F`:
/// "calibrated:" and F in its shortest round-trip spelling ("calibrated:10").
std::string calibrated_rule(double factor);

/// Grades every prediction of o.predictions (or of shard o.shard) into
/// o.out (results.jsonl in input order, summary.json, manifest.json — signed
/// with o.sign_key when set — and SHA256SUMS; schema/GRADING.md "Manifest"), moved
/// into place when complete. Reads the predictions file twice: a check of
/// every line and case first (problems, nothing graded), then the grading,
/// which checks the file did not change meanwhile. `cache` (may be null)
/// answers gradings recorded before and records new ones. Errors: input
/// errors (no prediction, a split that does not hold the case, the sandbox
/// unavailable), the store's, writing the folder, an interrupt.
Result<GradeOutcome> grade_predictions(const GradeOptions& o, CaseLookup& cases, GradingCache* cache,
                                       const GradeHooks& hooks = {});

/// Joins the folders of `grade --shard I/N` runs into `out`, as an unsharded
/// run writes it, judging every results line again against its case
/// (schema/GRADING.md "Shards"). Errors: not shards of one grading, a gap or
/// an overlap, a line that is not what failmap derives from what it says the
/// candidate did, a case changed since it was graded. The folder's
/// manifest.json is signed with `sign_key` when set.
Result<GradeOutcome> merge_gradings(const std::vector<std::string>& dirs, const std::string& out, CaseLookup& cases,
                                    const std::optional<std::filesystem::path>& sign_key = std::nullopt);

}  // namespace failmap
