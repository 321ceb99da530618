#include "io/digest.h"

#include "io/case_file.h"
#include "io/jcs.h"
#include "io/pyjson.h"
#include "io/sha256.h"

namespace failmap {

Json case_digest_record(const Case& c) {
  Json j = case_to_json(c, /*include_published=*/false);
  j.erase("format");
  j.erase("format_version");
  Json params = Json::object();
  for (const auto& [name, value] : c.params) params[name] = python_json(value);
  j["params"] = std::move(params);
  Json fixtures = Json::array();
  for (const Fixture& f : c.fixtures)
    fixtures.push_back(Json{{"label", f.label}, {"args", python_json(Value::list(f.args))}, {"expected", python_json(f.expected)}});
  j["fixtures"] = std::move(fixtures);
  return j;
}

Json case_digest_document(const Case& c, const std::vector<RunDigestInput>& runs) {
  Json r = Json::object();
  for (const RunDigestInput& run : runs)
    r[std::string(strategy_name(run.strategy))] = Json{{"exit_status", run.exit_status}, {"observation", run.observation_digest}};
  return Json{{"scheme", "failmap-case-digest"}, {"version", k_case_digest_version}, {"case", case_digest_record(c)}, {"runs", r}};
}

Result<CaseDigests> compute_case_digests(const Case& c, const std::vector<RunDigestInput>& runs) {
  Json doc = case_digest_document(c, runs);
  CaseDigests out;
  std::string text;
  for (const auto& [name, value] : doc["case"].items()) {
    text.clear();
    if (auto s = append_canonical_json(text, value); !s) return input_error("case " + c.id + ", field " + name + ": " + s.error().message);
    out.fields[name] = sha256_hex(text);
  }
  auto whole = canonical_json(doc);
  if (!whole) return input_error("case " + c.id + ": " + whole.error().message);
  out.case_digest = sha256_hex(*whole);
  return out;
}

std::string field_digests_text(const CaseDigests& d) {
  Json j = Json::object();
  for (const auto& [name, digest] : d.fields) j[name] = digest;
  return *canonical_json(j);  // strings only: cannot fail
}

Result<std::map<std::string, std::string>> parse_field_digests(std::string_view text, const std::string& where) {
  auto j = parse_json_strict(text, where);
  if (!j) return j.error();
  if (!j->is_object()) return input_error(where + ": expected a JSON object of field digests");
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : j->items()) {
    if (!value.is_string() || !is_sha256_hex(value.get_ref<const std::string&>()))
      return input_error(where + ": field '" + name + "' is not a SHA-256 hex digest (64 lower-case hex characters)");
    out[name] = value.get<std::string>();
  }
  return out;
}

std::string repair_commitment(const std::array<unsigned char, 32>& salt, std::string_view canonical_repaired_record) {
  Sha256 h;
  h.update(std::string_view(reinterpret_cast<const char*>(salt.data()), salt.size()));
  h.update(canonical_repaired_record);
  return h.hex();
}

}  // namespace failmap
