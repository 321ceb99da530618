// failmap's own digests kept in the archive (schema/DIGESTS.md): storing a
// case's digests (after import and runs), reading its stored field digests
// (archive_digests_internal.h, for verify.cc and regenerate.cc too), and the checks
// every command that writes or exports makes first: a case or run changed
// outside failmap since it was digested is refused, naming the command that
// accepts the change (checked_case_digest, check_case_unchanged,
// check_field_digests), and whether `run` would refuse a case
// (run_refusal). Verifying is verify.cc's, regenerating regenerate.cc's.
#include "store/archive_digests.h"

#include <algorithm>
#include <regex>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/json.h"
#include "io/digest.h"
#include "io/observation.h"
#include "store/archive_digests_internal.h"

namespace failmap {

namespace digests_detail {

// The blobs of case `id`; nullopt when there is no such case.
Result<std::optional<FieldDigestBlobs>> read_field_digest_blobs(Archive& archive, const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto st, archive.db().prepare("SELECT cases.field_digests, case_texts.field_digests FROM cases "
                                                   "CROSS JOIN case_texts USING (text_id) WHERE id "
                                                   "= ?1"));
  st.bind(1, id);
  FAILMAP_TRY_ASSIGN(auto r, st.step());
  if (!r) return std::optional<FieldDigestBlobs>();
  FieldDigestBlobs blobs;
  if (!st.column_is_null(0)) blobs.row = st.column_blob(0);
  blobs.text = st.column_blob(1);
  return std::optional<FieldDigestBlobs>(std::move(blobs));
}

// The stored field digests of a case from its two blobs, merged by member
// name; nullopt when the row's is NULL.
Result<std::optional<std::map<std::string, std::string>>> stored_field_digests(const std::optional<std::string>& row,
                                                                               std::string_view text,
                                                                               const std::string& where) {
  if (!row) return std::optional<std::map<std::string, std::string>>();
  std::map<std::string, std::string> fields;
  FAILMAP_TRY(unpack_field_digests(*row, k_row_digest_fields, where + ", field field_digests", &fields));
  FAILMAP_TRY(unpack_field_digests(text, k_text_digest_fields, where + ", case_texts field field_digests", &fields));
  return std::optional<std::map<std::string, std::string>>(std::move(fields));
}

}  // namespace digests_detail

using digests_detail::read_field_digest_blobs;

Result<RunRefusal> run_refusal(Archive& archive, const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto c, archive.load_case(id));
  if (!c) return RunRefusal::Unknown;
  FAILMAP_TRY_ASSIGN(auto blobs, read_field_digest_blobs(archive, id));
  // Without field digests, `run` checks the case digest over every run, the
  // unreadable one too.
  if (!blobs || !blobs->row) return RunRefusal::Yes;
  auto d = compute_case_digests(*c, {}, FieldDigests::Packed);
  if (!d) return RunRefusal::Yes;
  return check_field_digests(*c, *d, *blobs->row, blobs->text, "", "") ? RunRefusal::No : RunRefusal::Yes;
}

Status store_case_digests(Archive& archive, const std::string& id, const CaseDigests& d) {
  return archive.set_case_digests(id, d);
}

Status refresh_case_digest(Archive& archive, const Case& c) {
  FAILMAP_TRY_ASSIGN(auto runs, archive.load_runs(c.id));
  std::vector<RunDigestInput> inputs;
  for (const RunRecord& r : runs)
    inputs.push_back(RunDigestInput{r.strategy, r.exit_status, observation_digest(r.observation)});
  FAILMAP_TRY_ASSIGN(auto d, compute_case_digests(c, inputs));
  return store_case_digests(archive, c.id, d);
}

namespace {

// When stored run `r`'s exit status contradicts its observation's "passed"
// (exit 0 exactly when every check passed): the Error, WHERE naming the
// case, with `consequence` after the fix; nullopt otherwise, and for an
// observation without a boolean "passed" (named where it is read).
std::optional<Error> contradicted_exit_status(const Json& observation, const RunRecord& r, const std::string& where,
                                              std::string_view consequence) {
  auto passed = observation.is_object() ? observation.find("passed") : observation.end();
  if (passed == observation.end() || !passed->is_boolean() || (r.exit_status == 0) == passed->get<bool>())
    return std::nullopt;
  return input_error(where + ", " + std::string(strategy_name(r.strategy)) + " run, field exit_status: " +
                     std::to_string(r.exit_status) + ", but its observation has \"passed\": " +
                     (passed->get<bool>() ? "true (exit_status 0)" : "false (exit_status 1)") +
                     ": the run was changed after it was recorded. `failmap run " + r.case_id + "` records it again. " +
                     std::string(consequence));
}

// The command a refusal of a changed case names to accept the change; with
// `discard`, for a case that also holds a run whose stored values no longer
// decode (plain `digest regenerate` refuses such a run).
std::string regenerate_advice(const std::string& id, bool discard, const std::string& sharing = "") {
  std::string advice = "`failmap digest regenerate " + std::string(discard ? "--discard-unreadable-runs " : "") + id +
                       "` accepts the change";
  if (!sharing.empty()) advice += " (its texts are kept once for " + sharing + " too, so they are named with it)";
  if (discard)
    advice += " and discards the case's runs that no longer read (a `run` of the case records them again then)";
  return advice + ".";
}

// What follows every refusal of checked_case_digest and check_field_digests.
std::string changed_next_steps(const std::string& id, std::string_view consequence) {
  return " `failmap verify " + id + "` names the difference; " + regenerate_advice(id, false) + " " +
         std::string(consequence);
}

}  // namespace

Result<std::string> checked_case_digest(const Case& c, const std::vector<const RunRecord*>& runs,
                                        const std::optional<std::string>& stored, const std::string& where,
                                        std::string_view consequence) {
  std::vector<RunDigestInput> inputs;
  inputs.reserve(runs.size());
  for (const RunRecord* r : runs) {
    std::string digest = observation_digest(r->observation);
    if (digest != r->digest)
      return input_error(where + ", " + std::string(strategy_name(r->strategy)) + " run: the stored digest " +
                         r->digest + " is not the SHA-256 of its observation as the archive holds it (" + digest +
                         "): the run, or the fixtures it is rebuilt against, changed after it was recorded." +
                         changed_next_steps(c.id, consequence));
    inputs.push_back(RunDigestInput{r->strategy, r->exit_status, std::move(digest)});
  }
  FAILMAP_TRY_ASSIGN(auto recomputed, case_digest(c, inputs));
  if (stored != recomputed) {
    // An exit status edited against its run's observation: only a new run
    // mends it (`digest regenerate` refuses it).
    for (const RunRecord* r : runs)
      if (auto j = parse_json_strict(r->observation, where); j)
        if (auto e = contradicted_exit_status(*j, *r, where, consequence)) return *e;
    return input_error(where + ": its content does not match the case digest the archive stores (stored " +
                       stored.value_or("none") + ", recomputed " + recomputed +
                       "): it was changed after it was digested." + changed_next_steps(c.id, consequence));
  }
  return recomputed;
}

namespace digests_detail {

Result<std::vector<std::string>> cases_sharing_texts(Archive& archive, const std::string& id) {
  std::vector<std::string> others;
  FAILMAP_TRY_ASSIGN(auto st, archive.db().prepare("SELECT o.id FROM cases c JOIN cases o ON o.text_id = c.text_id AND "
                                                   "o.id != c.id WHERE c.id = ?1 ORDER BY o.id"));
  st.bind(1, id);
  FAILMAP_TRY(st.for_each_row([&]() -> Status {
    others.push_back(st.column_text(0));
    return ok_status();
  }));
  return others;
}

}  // namespace digests_detail

namespace {

// Whether the refusal `message` of check_field_digests names a text field
// (k_text_digest_fields) among the fields it lists as changed.
bool names_changed_text(const std::string& message) {
  static const std::regex fields(R"(its fields? ([a-z_]+(?:, [a-z_]+)*) do(?:es)? not match)");
  std::smatch m;
  if (!std::regex_search(message, m, fields)) return false;
  std::string list = m[1].str();
  for (std::string_view name : k_text_digest_fields) {
    for (std::size_t at = 0; (at = list.find(name, at)) != std::string::npos; at += name.size()) {
      bool starts = at == 0 || list[at - 1] == ' ',
           ends = at + name.size() == list.size() || list[at + name.size()] == ',';
      if (starts && ends) return true;
    }
  }
  return false;
}

// Whether a text field of `c` (k_text_digest_fields) differs from the text
// field digests its archive stores; false when that cannot be told (no
// stored digests, a storage error, a blob of the wrong size).
bool texts_changed(Archive& archive, const Case& c) {
  auto blobs = digests_detail::read_field_digest_blobs(archive, c.id);
  if (!blobs || !*blobs) return false;
  auto d = compute_case_digests(c, {}, FieldDigests::Packed);
  return d && (*blobs)->text.size() == d->text_packed.size() && (*blobs)->text != d->text_packed;
}

}  // namespace

Status advise_discard_if_unreadable(Archive& archive, const std::string& id, Status refusal, const Case* c) {
  if (refusal) return refusal;
  const std::string plain = regenerate_advice(id, false);
  std::string message = refusal.error().message;
  auto at = message.find(plain);
  if (at == std::string::npos) return refusal;
  const bool discard = !archive.load_runs(id);  // plain `digest regenerate` refuses a run that does not read
  // A changed text is kept once for every case sharing its row:
  // `digest regenerate ID` refuses unless they are named too.
  std::vector<std::string> others;
  if (names_changed_text(message) || (c && texts_changed(archive, *c)))
    if (auto sharing =
            digests_detail::cases_sharing_texts(archive, id))  // on a storage error the advice names `id` alone
      others = std::move(*sharing);
  if (!discard && others.empty()) return refusal;
  std::string ids = id;
  for (const std::string& o : others) ids += " " + o;
  std::string names;
  for (const std::string& o : others) names += (names.empty() ? "" : ", ") + o;
  message.replace(at, plain.size(), regenerate_advice(ids, discard, names));
  return Error{std::move(message), refusal.error().kind};
}

Status check_case_unchanged(Archive& archive, const Case& c, bool keeps_runs, std::string_view consequence) {
  return advise_discard_if_unreadable(archive, c.id,
                                      check_case_unchanged_as_stored(archive, c, keeps_runs, consequence));
}

Status check_case_unchanged_as_stored(Archive& archive, const Case& c, bool keeps_runs, std::string_view consequence) {
  const std::string where = archive.db().path() + ": case " + c.id;
  FAILMAP_TRY_ASSIGN(auto blobs, read_field_digest_blobs(archive, c.id));
  if (blobs && blobs->row) {
    auto d = compute_case_digests(c, {}, FieldDigests::Packed);
    if (!d) return input_error(where + ": " + d.error().message);
    FAILMAP_TRY(check_field_digests(c, *d, *blobs->row, blobs->text, where, consequence));
    if (!keeps_runs) return ok_status();
  }
  // Runs kept enter the refreshed case digest (and a case without field
  // digests has nothing finer): the stored case digest must still be the
  // one over the case and every run it holds.
  FAILMAP_TRY_ASSIGN(auto runs, archive.load_runs(c.id));
  FAILMAP_TRY_ASSIGN(auto stored, archive.case_digest(c.id));
  std::vector<const RunRecord*> pointers;
  for (const RunRecord& run : runs) pointers.push_back(&run);
  FAILMAP_TRY(checked_case_digest(c, pointers, stored, where, consequence));
  return ok_status();
}

Status check_field_digests(const Case& c, const CaseDigests& d, std::string_view stored_row,
                           std::string_view stored_text, const std::string& where, std::string_view consequence) {
  // Names are listed in byte order: both arrays are sorted, so merge them.
  std::vector<std::string_view> changed;
  const struct {
    const std::array<std::string_view, 8>& names;
    std::string_view stored, recomputed, column;
  } blobs[] = {{k_row_digest_fields, stored_row, d.row_packed, "field_digests"},
               {k_text_digest_fields, stored_text, d.text_packed, "case_texts field field_digests"}};
  for (const auto& b : blobs) {
    if (b.stored.size() != 32 * b.names.size())
      return input_error(where + ", " + std::string(b.column) + ": expected " + std::to_string(32 * b.names.size()) +
                         " bytes (" + std::to_string(b.names.size()) + " SHA-256 digests), got " +
                         std::to_string(b.stored.size()) + "." + changed_next_steps(c.id, consequence));
    for (std::size_t i = 0; i < b.names.size(); ++i)
      if (b.stored.substr(32 * i, 32) != b.recomputed.substr(32 * i, 32)) changed.push_back(b.names[i]);
  }
  if (changed.empty()) return ok_status();
  std::sort(changed.begin(), changed.end());
  std::string names;
  for (std::string_view n : changed) names += (names.empty() ? "" : ", ") + std::string(n);
  const bool one = changed.size() == 1;
  return input_error(where + ": its field" + (one ? " " : "s ") + names + (one ? " does" : " do") +
                     " not match the field digest" + (one ? "" : "s") +
                     " the archive stores: the case was changed after it was digested." +
                     changed_next_steps(c.id, consequence));
}

}  // namespace failmap
