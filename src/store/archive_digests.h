// Keeping failmap's own digests (schema/DIGESTS.md) in the archive: refresh
// after import and runs and the checks before a write (archive_digests.cc), `verify`
// (verify.cc: recompute and replay, never write) and `digest regenerate`
// (regenerate.cc). Published digests from pages are left alone.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "io/digest.h"
#include "store/archive.h"

namespace failmap {

/// Recomputes and stores the case digest and field digests of case `c` from
/// its stored runs (observation digests recomputed from the stored bytes).
/// Call inside the caller's transaction after insert_case or record_run.
/// Errors: a value without an RFC 8785 form, storage failures.
Status refresh_case_digest(Archive& archive, const Case& c);

/// Checks a case's recorded digests against its content before failmap
/// writes something derived from them (a bundle or page, a recorded run):
/// each of `runs` (the case's recorded runs, observations as stored or
/// rebuilt) must have as stored digest the SHA-256 of its observation, and
/// `stored` (the case digest the archive keeps, 64 hex; nullopt when it
/// keeps none) must be the case digest recomputed over `c` and those runs
/// (schema/DIGESTS.md). Returns that case digest, 64 lower-case hex digits.
/// Errors (a case or run changed outside failmap after it was digested)
/// start with `where` ("ARCHIVE: case ID"), give both digests, name
/// `failmap verify ID` (which shows the difference) and `failmap digest
/// regenerate ID` (which accepts it), and end with `consequence` ("Nothing
/// was exported."); or a value without an RFC 8785 form.
Result<std::string> checked_case_digest(const Case& c, const std::vector<const RunRecord*>& runs,
                                        const std::optional<std::string>& stored, const std::string& where,
                                        std::string_view consequence);

/// Before a recorded run of case `c` (as loaded from `archive`) refreshes
/// its digests, checks that nothing of it was changed outside failmap since
/// it was digested, so that recording never re-digests such content: its
/// fields against the stored field digests (check_field_digests), and, when
/// the run keeps some of the case's recorded runs (`keeps_runs`: they enter
/// the refreshed case digest) or the case has no stored field digests (an
/// archive from before schema 3), the stored case digest against the case
/// and every run it holds (checked_case_digest). Runs the recording
/// replaces are not checked: like run --all, it rewrites them. Errors as
/// those two, and storage errors.
Status check_case_unchanged(Archive& archive, const Case& c, bool keeps_runs, std::string_view consequence);

/// check_case_unchanged without the advice of advise_discard_if_unreadable.
Status check_case_unchanged_as_stored(Archive& archive, const Case& c, bool keeps_runs, std::string_view consequence);

/// The refusal `refusal` of a changed case `id` (check_case_unchanged,
/// check_field_digests), as the user should read it: no refusal names a
/// command that would refuse in turn. Its advice `digest
/// regenerate ID` becomes `digest regenerate --discard-unreadable-runs ID`
/// when the case also holds a run whose stored values do not decode (plain
/// regenerate refuses that run), and names the other cases sharing the case's
/// case_texts row after ID when a changed field is a text (schema/007:
/// regenerate refuses a shared text change unless they are named). `refusal`
/// unchanged otherwise, and when it is not an error. Reads the archive only
/// when `refusal` is an error. A refusal that names no fields (that of
/// checked_case_digest, which export and split make) learns whether a text
/// changed from `c`, the case as decoded, against its stored text field
/// digests; without `c` it names the case alone.
Status advise_discard_if_unreadable(Archive& archive, const std::string& id, Status refusal, const Case* c = nullptr);

/// The field check of check_case_unchanged, for `run --all` (which
/// replaces every run, so needs nothing else) on its evaluating threads: `d`, the digests computed
/// from `c` (compute_case_digests, any runs), against the packed field
/// digests the archive stores, `stored_row` (cases.field_digests, 256
/// bytes) and `stored_text` (case_texts.field_digests, 256 bytes;
/// schema/007_case_texts.sql). Errors as checked_case_digest, naming the
/// changed members in name order (e.g. "fixtures, params"), or the stored
/// blob that is not 256 bytes.
Status check_field_digests(const Case& c, const CaseDigests& d, std::string_view stored_row,
                           std::string_view stored_text, const std::string& where, std::string_view consequence);

/// Whether `failmap run ID` would refuse case `id` as changed since it was
/// digested (check_case_unchanged for a run of every strategy: its fields
/// against the stored field digests; a case without them is refused, its
/// case digest needing every run): No or Yes; Unknown for an id the archive
/// has no case for. Decides what the refusal of a run whose stored values do
/// not decode names (unreadable_run_advice). Errors: storage errors, a case
/// row that does not decode.
Result<RunRefusal> run_refusal(Archive& archive, const std::string& id);

/// Stores already computed digests of case `id` (cases.case_digest and
/// cases.field_digests). Call inside the caller's transaction.
Status store_case_digests(Archive& archive, const std::string& id, const CaseDigests& d);

/// One difference `verify` found, or one value `digest regenerate` changed.
struct DigestMismatch {
  std::string case_id;
  std::string strategy;  ///< "" for fields of the case itself
  /// What differs: a case field ("summary", "fixtures[0].expected",
  /// "case_digest"), or of a run: "digest", "exit_status",
  /// "observations[2].actual", "passed", "observation", "actuals" (a
  /// compact run's stored actual values spelled otherwise than failmap
  /// writes the same values, recomputed: failmap's spelling; or a list of
  /// another length than the case has fixtures, stored: the list and
  /// "(1 actual value for 7 fixtures)", recomputed: the replayed values); or a table holding
  /// rows of a case id the archive has no case for ("runs", "case_digests",
  /// ...; stored "row for this id", recomputed "no such case"); or
  /// "unreadable": a case row whose stored values do not parse or replay
  /// (stored: why, naming the field; recomputed: empty).
  std::string field;
  std::string stored;      ///< value in the archive ("null" when absent)
  std::string recomputed;  ///< value recomputed from the case and the compiled strategies
};

/// What `verify` checked and found.
struct VerifyReport {
  std::size_t cases = 0;
  std::size_t runs = 0;
  /// Cases whose row holds no field digests (cases.field_digests NULL: a
  /// case migrated from before schema 3, or a NULL written by hand): only
  /// their case digest could be compared. Not a mismatch; `digest
  /// regenerate` stores them.
  std::size_t without_field_digests = 0;
  std::vector<DigestMismatch> mismatches;  ///< case id order, then strategy order
};

/// Verifies the cases named in `ids` (every case when empty) without writing:
/// fixtures against the mechanism's templates at the case's binding, every
/// recorded run replayed through the compiled strategy and compared byte for
/// byte (differences localized to the observation's fields; the stored side
/// is what the archive holds: a compact run's rebuilt document only when the
/// run digest is its digest, else only its actual values), the stored run
/// digests and exit statuses, the field digests, and, when nothing finer was
/// found for a case, its case digest; and that the published digests (kept
/// verbatim, outside the case digest) are 64 lower-case hex digits, as a
/// bundle or page must hold them. A case whose stored values cannot be
/// read or replayed (a digest that is not 32 bytes, an observation or other
/// stored JSON text that does not parse, a binding check_stored_binding
/// refuses, a run of an unknown strategy) is one
/// mismatch, field "unreadable", and the other cases are still verified.
/// Errors: an unknown id, SQLite's own errors, and (before anything is
/// verified) a case, among `ids` or of the whole archive, of a mechanism this
/// build does not compile: the archive was written by another failmap, and
/// its cases cannot be recomputed here, which is no mismatch. The Input
/// error names each such mechanism with its case count and this failmap's
/// version. With `jobs` > 1 and no `ids`,
/// cases are verified on that many threads (one of them also reads the
/// archive ahead); the report is identical to `jobs` = 1: same mismatches in
/// the same order.
Result<VerifyReport> verify_cases(Archive& archive, const std::vector<std::string>& ids, unsigned jobs = 1);

/// What `digest regenerate` did.
struct RegenerateReport {
  std::size_t cases = 0;
  std::size_t runs = 0;
  std::vector<DigestMismatch> changes;  ///< stored = old value, recomputed = new value
};

/// Recomputes every stored digest of the cases in `ids` (all when empty) from
/// the stored content — run digests from observation bytes, then field and
/// case digests — and writes the changed ones in one transaction. Every
/// problem is checked before anything is written: a recorded run whose
/// stored values do not decode (actual values, or an observation that is
/// not JSON) is an Error naming the command that works
/// (unreadable_run_advice) and nothing changes; with
/// `discard_unreadable_runs`, such a run is instead deleted in the same
/// transaction, reported as a change (field "run", stored "unreadable:
/// WHY", recomputed "discarded"), and the case's digests are computed
/// without it, as for a case with no run of that strategy.
Result<RegenerateReport> regenerate_digests(Archive& archive, const std::vector<std::string>& ids,
                                            bool discard_unreadable_runs = false);

}  // namespace failmap
