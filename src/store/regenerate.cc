// `failmap digest regenerate` (regenerate_digests, store/archive_digests.h): every
// digest of the named cases recomputed from the stored content (run digests
// and exit statuses from the observations, then field and case digests, seal
// digests), checked before anything is written (a text row shared with cases
// not named, a run that does not decode unless it is to be discarded), and
// the changed ones written in one transaction.
#include "store/archive_digests.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/json.h"
#include "io/digest.h"
#include "io/observation.h"
#include "store/archive_digests_internal.h"

namespace failmap {
namespace {

using digests_detail::read_field_digest_blobs;
using digests_detail::stored_field_digests;

// The failmap digests stored for a case (NULL columns as nullopt); the
// field digests as field_digests_text, as `digest regenerate` reports them,
// and the case_texts blob as stored.
struct StoredDigests {
  std::optional<std::string> case_digest;
  std::optional<std::string> field_digests;
  std::string text_blob;
};

Result<StoredDigests> load_stored_digests(Archive& archive, const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto blobs, read_field_digest_blobs(archive, id));
  StoredDigests out;
  if (!blobs) return out;
  FAILMAP_TRY_ASSIGN(auto fields, stored_field_digests(blobs->row, blobs->text, archive.db().path() + ": case " + id));
  if (fields) out.field_digests = field_digests_text(*fields);
  out.text_blob = std::move(blobs->text);
  FAILMAP_TRY_ASSIGN(auto d, archive.case_digest(id));
  out.case_digest = std::move(d);
  return out;
}

// Calls fn for each case named (all when `ids` is empty), in id order for
// "all" and in the given order otherwise. Unknown ids are an Error.
Status for_cases(Archive& archive, const std::vector<std::string>& ids, const std::function<Status(const Case&)>& fn) {
  if (ids.empty()) return archive.for_each_case(fn);
  for (const std::string& id : ids) {
    FAILMAP_TRY_ASSIGN(auto c, archive.load_case(id));
    if (!c) return input_error("unknown case '" + id + "' in " + archive.db().path() + " (see `failmap list`)");
    FAILMAP_TRY(fn(*c));
  }
  return ok_status();
}

// For `digest regenerate ID...`: when case `id`'s text digests change
// (`stored_text` as stored, `text_packed` recomputed) and its case_texts row
// is shared with cases not among `ids`, an Error naming them (nothing is
// written).
Status check_shared_texts(Archive& archive, const std::string& id, std::string_view stored_text,
                          const std::string& text_packed, const std::vector<std::string>& ids, bool discard) {
  if (stored_text == text_packed) return ok_status();  // the texts did not change
  FAILMAP_TRY_ASSIGN(auto sharing, digests_detail::cases_sharing_texts(archive, id));
  std::string others;
  for (const std::string& other : sharing)
    if (std::find(ids.begin(), ids.end(), other) == ids.end()) others += (others.empty() ? "" : ", ") + other;
  if (others.empty()) return ok_status();
  return input_error(archive.db().path() + ": case " + id + ": its texts changed, and they are kept once for cases " +
                     others +
                     " too (schema/007_case_texts.sql), whose digests would then accept the change unnamed: name them "
                     "as well, or run `failmap digest regenerate" +
                     std::string(discard ? " --discard-unreadable-runs" : "") + "` without ids. Nothing was written.");
}

}  // namespace

Result<RegenerateReport> regenerate_digests(Archive& archive, const std::vector<std::string>& ids,
                                            bool discard_unreadable_runs) {
  struct Pending {
    std::string case_id;
    std::vector<RunRecord> runs;  // with new digests
    CaseDigests digests;
    std::vector<StrategyKind> discarded;  // runs to delete
  };
  RegenerateReport report;
  std::vector<Pending> writes;
  // A refusal of a run that does not decode; over every case (no ids), it
  // says that other cases may hold such runs too.
  auto nothing_written = [&](Error e) -> Status {
    if (ids.empty()) e = with_other_unreadable_runs(archive, std::move(e));
    return input_error(e.message + (e.message.ends_with('.') ? " " : ". ") + "Nothing was written.");
  };
  auto s = for_cases(archive, ids, [&](const Case& c) -> Status {
    ++report.cases;
    FAILMAP_TRY_ASSIGN(auto stored, load_stored_digests(archive, c.id));
    std::vector<UnreadableRun> unreadable;
    auto runs = archive.load_runs(c.id, discard_unreadable_runs ? &unreadable : nullptr);
    if (!runs) return nothing_written(runs.error());
    Pending p{c.id, {}, {}, {}};
    auto discard = [&](StrategyKind k, const std::string& why) {
      report.changes.push_back(
          DigestMismatch{c.id, std::string(strategy_name(k)), "run", "unreadable: " + why, "discarded"});
      p.discarded.push_back(k);
    };
    for (const UnreadableRun& u : unreadable) discard(u.strategy, u.why);
    std::vector<RunDigestInput> inputs;
    for (RunRecord& r : *runs) {
      std::string strategy(strategy_name(r.strategy));
      auto j = parse_json_strict(r.observation,
                                 archive.db().path() + ": case " + c.id + ", " + strategy + " run observation");
      if (!j && discard_unreadable_runs) {
        discard(r.strategy, j.error().message);
        continue;
      }
      if (!j) {
        FAILMAP_TRY_ASSIGN(auto refusal, run_refusal(archive, c.id));
        return nothing_written(input_error(j.error().message + unreadable_run_advice(c.id, refusal)));
      }
      ++report.runs;
      bool run_changed = false;
      // The exit status is derived from the observation's "passed" (exit 0
      // exactly when every check passed), as the digest is from its bytes:
      // regenerated with it, a contradicting pair is never digested (export
      // would write a bundle that import refuses), nor left to block a case
      // change being accepted (`run` refuses a case changed since it was
      // digested, and named this command).
      if (auto passed = j->is_object() ? j->find("passed") : j->end();
          passed != j->end() && passed->is_boolean() && (r.exit_status == 0) != passed->get<bool>()) {
        const int derived = passed->get<bool>() ? 0 : 1;
        report.changes.push_back(
            DigestMismatch{c.id, strategy, "exit_status", std::to_string(r.exit_status), std::to_string(derived)});
        r.exit_status = derived;
        run_changed = true;
      }
      std::string digest = observation_digest(r.observation);
      if (digest != r.digest) {
        report.changes.push_back(DigestMismatch{c.id, strategy, "digest", r.digest, digest});
        r.digest = digest;
        run_changed = true;
      }
      if (run_changed) p.runs.push_back(r);
      inputs.push_back(RunDigestInput{r.strategy, r.exit_status, digest});
    }
    FAILMAP_TRY_ASSIGN(auto d, compute_case_digests(c, inputs));
    // The prose is kept once for every case with the same texts
    // (schema/007): a text edit accepted for this case is accepted for the
    // cases sharing its row too, so they must be named as well.
    if (!ids.empty())
      if (auto shared =
              check_shared_texts(archive, c.id, stored.text_blob, d.text_packed, ids, discard_unreadable_runs);
          !shared)
        return shared;
    std::string fields = field_digests_text(d);
    bool changed = !p.runs.empty() || !p.discarded.empty();
    if (stored.field_digests.value_or("null") != fields) {
      report.changes.push_back(
          DigestMismatch{c.id, "", "field_digests", stored.field_digests.value_or("null"), fields});
      changed = true;
    }
    if (stored.case_digest.value_or("null") != d.case_digest) {
      report.changes.push_back(
          DigestMismatch{c.id, "", "case_digest", stored.case_digest.value_or("null"), d.case_digest});
      changed = true;
    }
    p.digests = std::move(d);
    if (changed) writes.push_back(std::move(p));
    return ok_status();
  });
  FAILMAP_TRY(s);
  // Seal digests (schema/009): a repair salt changed outside failmap is
  // accepted as the cases' other stored content is.
  FAILMAP_TRY_ASSIGN(auto seals, archive.seal_mismatches(ids));
  for (const SealMismatch& m : seals)
    report.changes.push_back(DigestMismatch{m.case_id, "", "seal_digest (" + m.what + ")", m.stored, m.recomputed});
  std::stable_sort(report.changes.begin(), report.changes.end(),
                   [](const DigestMismatch& a, const DigestMismatch& b) { return a.case_id < b.case_id; });
  if (writes.empty() && seals.empty()) return report;
  Transaction tx(archive.db());
  FAILMAP_TRY(tx.begin());
  for (const Pending& p : writes) {
    for (StrategyKind k : p.discarded) FAILMAP_TRY(archive.delete_run(p.case_id, k));
    for (const RunRecord& r : p.runs) FAILMAP_TRY(archive.record_run(r));
    FAILMAP_TRY(store_case_digests(archive, p.case_id, p.digests));
  }
  FAILMAP_TRY(archive.store_seal_digests(seals));
  FAILMAP_TRY(tx.commit());
  return report;
}

}  // namespace failmap
