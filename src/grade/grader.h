// Grading: a model's candidate fix run against a case, check by check
// (schema/GRADING.md). The candidate runs in the sandbox (grade/sandbox.h)
// and only reports what `solve` returned; everything that decides the
// outcome happens here, in failmap's own process: the comparison with the
// expected values (Python `==`, core/value.h), the observation document
// (io/observation.h, byte for byte as the reference script prints it), its
// digest, the verdict, the checks that went from failing to passing and the
// held-out bindings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/mechanism.h"
#include "core/result.h"
#include "encoding/json.h"
#include "grade/report.h"
#include "grade/sandbox.h"
#include "io/predictions.h"

namespace failmap {

/// A case made ready for grading once, shared by all its candidates: the
/// calls to send (argument JSON text per fixture, visible then held-out),
/// the expected values, and the documents of the compiled strategies.
struct GradingCase {
  Case c;                          ///< the case as the archive holds it
  std::string case_digest;         ///< the archive's case digest (hex), the cache key
  std::vector<std::string> calls;  ///< JSON text of each call's argument list
  /// Held-out bindings (grade --held-out K) and, for each, the case
  /// instantiated there (its fixtures from the mechanism's templates).
  std::vector<Bindings> held_out;
  std::vector<Case> held_out_cases;
  std::vector<bool> broken_passed;  ///< per visible check: does the broken strategy pass it
  /// Observation documents of the compiled strategies, by strategy name
  /// (the repaired one only in a build with repairs).
  std::vector<std::pair<std::string, std::string>> strategy_documents;
  /// The case's own CPU budget in seconds (`grade --timeout calibrated:F`,
  /// calibrated_budget); none: every candidate runs under the grading's
  /// SandboxLimits::cpu_seconds.
  std::optional<double> cpu_budget;
};

/// The limits a candidate of `gc` runs under: `limits`, with gc.cpu_budget
/// and its wall_safety_net in place of the CPU budget and the wall clock
/// when the case has a budget of its own.
SandboxLimits case_limits(const GradingCase& gc, const SandboxLimits& limits);

/// The calibrated CPU budget of a case (schema/GRADING.md "Limits"):
/// max(floor_seconds, factor x reference_seconds) rounded up to the next
/// power of two seconds (..., 0.5, 1, 2, 4, ...), at most cap_seconds.
/// `reference_seconds` is the larger CPU time of the case's own broken and
/// unsuccessful sources (reference_cpu_seconds). Requires factor > 0,
/// 0 < floor_seconds <= cap_seconds.
double calibrated_budget(double reference_seconds, double factor, double floor_seconds = 1.0,
                         double cap_seconds = k_max_cpu_seconds);

/// The CPU time (user + system, seconds) the case's own sources take in the
/// sandbox: the broken and the unsuccessful strategy's Python (after the
/// case's parameter assignments, as `failmap reference` prints them) each
/// run in `worker` as a candidate of `gc` would be (its calls, visible and
/// held-out, its seed), under a budget of k_max_cpu_seconds; the larger of
/// the two. A source that times out counts as k_max_cpu_seconds. Errors:
/// the sandbox failed (Kind::Input, naming the case and the strategy).
Result<double> reference_cpu_seconds(SandboxWorker& worker, const GradingCase& gc);

/// The deterministic held-out bindings of `c` (schema/GRADING.md
/// "Held-out bindings"): for k = 1, 2, …, each parameter P is drawn as
/// minimum + (u64 of the first 8 bytes, big-endian, of SHA-256 of
/// "failmap-held-out\0" ‖ case id ‖ "\0" ‖ P ‖ "\0" ‖ decimal k) mod (maximum
/// - minimum + 1), with maximum the mechanism's declared maximum or minimum
/// + 999; a binding equal to the case's own or to one drawn before is
/// skipped. At most `count`, fewer when the domain has fewer other values
/// (at most 64 × count draws are tried).
std::vector<Bindings> held_out_bindings(const Mechanism& m, const Case& c, std::size_t count);

/// Makes `c` ready for grading with `held_out` further bindings. Errors:
/// the mechanism is not compiled in, a strategy or a held-out binding's
/// templates cannot be evaluated.
Result<GradingCase> prepare_grading_case(const Case& c, std::string case_digest, std::size_t held_out);

/// The seed of a candidate's `random` (schema/GRADING.md "Seeds"): the first
/// 8 bytes, big-endian, of SHA-256 of "failmap-seed" NUL case id NUL the
/// source's SHA-256 (hex). The same case and source get the same seed in
/// every worker, shard, --jobs, run and machine, whatever the model or
/// sample (the record shares a grading between them).
std::uint64_t candidate_seed(const std::string& case_id, const std::string& source_sha256);

/// The order a candidate's calls are made in (schema/GRADING.md "Held-out
/// bindings"): element p is the index into gc.calls of the p-th call. Empty
/// (the case's order) without held-out bindings; with them, every call,
/// visible and held-out, shuffled by Fisher-Yates driven by SplitMix64
/// seeded with `seed`: for i = n-1 down to 1, swap element i with element
/// (next output mod (i + 1)).
std::vector<std::uint32_t> call_order(const GradingCase& gc, std::uint64_t seed);

/// Runs `source` in `worker` against `gc`: its calls in call_order, `random`
/// seeded with candidate_seed, under gc.cpu_budget when the case has one. The ChildRun's `order` says which call each
/// report record answers; candidate_report puts them back in gc's order.
Result<ChildRun> run_candidate(SandboxWorker& worker, const GradingCase& gc, const std::string& source,
                               const std::string& source_sha256);

/// The share of its CPU budget a candidate used, as cpu.jsonl spells it (its
/// `share`): "<1/16", "<1/4", "<1/2", "<1" or ">=1" (schema/GRADING.md
/// "cpu.jsonl").
std::string cpu_share(double used_seconds, double budget_seconds);

/// The outcome of one check.
struct CheckOutcome {
  std::string label;
  bool passed = false;
  bool reached = false;                  ///< the candidate's process made this call
  std::optional<std::string> exception;  ///< what `solve` raised
  std::optional<std::string> refused;    ///< why its return value was not compared
};

/// Everything a results line says of one prediction.
struct GradeResult {
  std::string verdict;  ///< "resolved" | "partial" | "unresolved" | "error"
  std::optional<GradeError> error;
  std::vector<CheckOutcome> checks;
  std::vector<std::string> f2p_success, f2p_failure, p2p_success, p2p_failure;
  std::optional<std::string> same_as;  ///< "broken" | "unsuccessful" | "repaired"
  std::string observation;             ///< the observation document's bytes
  std::string observation_sha256;
  struct HeldOut {
    Bindings binding;
    std::vector<std::string> failing;  ///< labels of the checks that did not pass there
  };
  std::vector<HeldOut> held_out;
  bool held_out_resolved = true;
  std::optional<double> cpu_seconds;  ///< CandidateReport::cpu_seconds: for cpu.jsonl, never a results line
};

/// Judges a sandbox run of `source` against `gc` (all of the reading and
/// comparing; `run` is what the worker reported, or the sandbox's Error):
/// judge_report(gc, candidate_report(gc, std::move(run), limits)). The
/// report's bytes move into the CandidateReport and are its values: one
/// report of SandboxLimits::output_bytes is held once, beside the
/// observation document written from it.
GradeResult judge(const GradingCase& gc, Result<ChildRun> run, const SandboxLimits& limits);

/// What the candidate did, from its run: the report read back
/// (read_report), with the error that ended its process (timeout, output
/// past the limit, an exit or a signal before every call was made, the
/// sandbox's own failure) outranking what the report says. A timeout names
/// the budget of case_limits(gc, limits). The run's report moves into the
/// CandidateReport (CandidateReport::bytes).
CandidateReport candidate_report(const GradingCase& gc, Result<ChildRun>&& run, const SandboxLimits& limits);

/// Judges what the candidate did against `gc`: failmap's comparison of each
/// returned value with the expected one, the observation document and its
/// digest, fail_to_pass / pass_to_pass, same_as, the held-out failures and
/// the verdict. The one code path of both `grade` and `grade merge`.
GradeResult judge_report(const GradingCase& gc, CandidateReport report);

/// The CandidateReport a results line (schema/GRADING.md "results.jsonl")
/// stands for — what only the candidate decided, as the line records it:
/// per visible check, not reached (Missing), the exception it raised, the
/// refusal of its value, or the value it returned (its "actual" in the
/// line's observation document, read by parse_python_json); the error that
/// stopped it; per held-out call, Missing when the line lists that check at
/// that binding as failing, else returning the expected value (the line
/// keeps no held-out values: which held-out checks failed is, like the
/// actual values, taken as the line says).
/// `grade merge` judges it again (judge_report) and compares every derived
/// member with the line's. Errors, prefixed by `where` and naming the
/// field: a member missing or of the wrong type, another number of checks
/// than the case has, an observation document that does not parse or has
/// another number of observations.
Result<CandidateReport> report_from_results_line(const GradingCase& gc, const Json& line, const std::string& where);

struct SummaryEntry;
/// The first place where `stored` and `derived` differ, as "field 'PATH':
/// stored X, recomputed Y" (PATH such as "checks[2].passed"; a long string
/// shown around where the two first differ); "" when they are equal.
std::string json_difference(const Json& stored, const Json& derived, const std::string& path);

/// A grading recalled from the archive's record (store/gradings.h), judged
/// again as a fresh one is: what the candidate did is read from the stored
/// judged members (report_from_results_line), judge_report derives the rest
/// from `gc`, and judged_members of the result must equal `stored` byte for
/// byte. Returns the result; a Mismatch Error "WHERE: field 'F': stored …,
/// recomputed …" for a record that does not parse or judges otherwise (an
/// edit behind failmap's back).
Result<GradeResult> judge_recorded(const GradingCase& gc, const std::string& stored, SandboxMode mode,
                                   const std::string& where);

/// Whether the result depends on the machine more than on the candidate: an
/// error of kind timeout, memory or sandbox (a busy or smaller machine may
/// give another). Such results are never recorded.
bool machine_dependent(const GradeResult& r);

/// The judged members of a results line (schema/GRADING.md
/// "results.jsonl"), `verdict` to `sandbox`: everything that depends on the
/// case and the source, not on the prediction's model, sample or line — what
/// the archive records (store/gradings.h).
Json judged_members(const GradeResult& r, SandboxMode mode);
/// As above, moving the observation document out of `r` (it may be tens of
/// MB) instead of copying it; `r.observation` is left empty.
Json judged_members(GradeResult&& r, SandboxMode mode);

/// How a results line's `reward` follows from its verdict and checks
/// (schema/GRADING.md "Reward").
enum class RewardMode {
  Graded,  ///< 1.0 resolved, 0.0 error, else the share of visible checks passed
  Binary,  ///< 1.0 resolved, else 0.0
};

/// "graded" | "binary".
std::string_view reward_mode_name(RewardMode mode);

/// The reward of judged members (judged_members, or as the archive recorded
/// them): by `mode`, from `verdict` and `checks[].passed`; 0.0 for a
/// `partial` or `unresolved` result without checks.
double reward_of(const Json& judged, RewardMode mode);

/// The results line of a prediction, compact JSON without the newline: the
/// prediction's members, `extracted` (only for a prediction given as
/// `completion`: extraction_json, grade/completion.h), `case_digest` (the
/// archive's digest of the case as graded, null when empty), then `judged`
/// (judged_members), then `reward` (reward_of `judged`). The same bytes
/// whether the grading ran now or was recalled from the archive's record.
/// `judged` is taken by value: a caller done with it moves it in, and its
/// members (an observation document of tens of MB) are moved, not copied.
std::string result_line(const Prediction& p, const std::string& mechanism, const std::string& source_sha256,
                        const std::string& case_digest, Json judged, RewardMode reward = RewardMode::Graded);

/// The summary entry of a results line's judged members (for a cached one).
SummaryEntry summary_entry(const Prediction& p, const std::string& mechanism, const Json& judged);

/// The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large
/// Language Models Trained on Code", https://arxiv.org/abs/2107.03374,
/// eq. 1) for n samples of which c are correct: 1 - C(n-c, k) / C(n, k),
/// computed as 1 - prod_{i=n-c+1}^{n} (1 - k / i) in doubles, in that
/// order (the paper's numerically stable form); 1.0 when n - c < k.
/// Requires 1 <= k <= n and c <= n.
double pass_at_k(std::int64_t n, std::int64_t c, std::int64_t k);

/// Per model: the counts and pass@k of summary.json.
struct ModelSummary {
  std::int64_t predictions = 0, resolved = 0, partial = 0, unresolved = 0, errors = 0, held_out_resolved = 0;
  /// per case: (samples, resolved samples)
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_case;
  /// per mechanism: the same counts, for the breakdown
  struct Counts {
    std::int64_t predictions = 0, resolved = 0, partial = 0, errors = 0;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_case;
  };
  std::map<std::string, Counts> per_mechanism;
};

/// What the summary counts of one graded prediction (from a GradeResult, or
/// read back from a results line by `grade merge`).
struct SummaryEntry {
  std::string model, case_id, mechanism, verdict;
  bool held_out = false;           ///< graded at held-out bindings
  bool held_out_resolved = false;  ///< and passed every check there
};

/// The summary entry of prediction `p` of a case of `mechanism` graded `r`.
SummaryEntry summary_entry(const Prediction& p, const std::string& mechanism, const GradeResult& r);

/// Adds one graded prediction to the summary of its model.
void add_to_summary(std::map<std::string, ModelSummary>& summary, const SummaryEntry& e);

/// The format_version of summary.json (schema/GRADING.md "summary.json");
/// `grade merge` joins only shards of this version.
inline constexpr int k_grade_summary_version = 2;

/// What summary_json needs besides the counts: the cases (for their units,
/// grade/stats.h) and, with `--split`, the split's cases.
struct SummaryCases {
  /// Every case a counted line names and, with a split, every case of the
  /// split, by id (not owned).
  std::map<std::string, const Case*> cases;
  /// With `--split`: the split's case ids in byte order. pass@k then runs
  /// over these, a case the model has no prediction for counting as failed.
  std::optional<std::vector<std::string>> split_cases;
  /// The bootstrap's seed (grade/stats.h).
  std::uint64_t seed = 0;
};

/// summary.json (schema/GRADING.md "summary.json"), compact JSON, keys in
/// a fixed order, models by name, each model and mechanism with its 95%
/// unit-bootstrap interval of pass@k and, with a split, its coverage.
Json summary_json(const std::map<std::string, ModelSummary>& summary, const Json& run_info, const SummaryCases& cases);

}  // namespace failmap
