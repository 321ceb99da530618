#include "store/digests.h"

#include <optional>

#include "core/evaluate.h"
#include "io/digest.h"
#include "io/json.h"
#include "io/observation.h"
#include "io/pyjson.h"
#include "io/sha256.h"

namespace failmap {
namespace {

// The failmap digests stored for a case (NULL columns as nullopt).
struct StoredDigests {
  std::optional<std::string> case_digest;
  std::optional<std::string> field_digests;
};

Result<StoredDigests> load_stored_digests(Archive& archive, const std::string& id) {
  auto st = archive.db().prepare("SELECT case_digest, field_digests FROM cases WHERE id = ?1");
  if (!st) return st.error();
  st->bind(1, id);
  auto r = st->step();
  if (!r) return r.error();
  StoredDigests out;
  if (!*r) return out;
  if (!st->column_is_null(0)) out.case_digest = st->column_text(0);
  if (!st->column_is_null(1)) out.field_digests = st->column_text(1);
  return out;
}

Status store_case_digests(Archive& archive, const std::string& id, const CaseDigests& d) {
  auto st = archive.db().prepare("UPDATE cases SET case_digest = ?2, field_digests = ?3 WHERE id = ?1");
  if (!st) return st.error();
  st->bind(1, id);
  st->bind(2, d.case_digest);
  st->bind(3, field_digests_text(d));
  return st->run();
}

// Calls fn for each case named (all when `ids` is empty), in id order for
// "all" and in the given order otherwise. Unknown ids are an Error.
Status for_cases(Archive& archive, const std::vector<std::string>& ids, const std::function<Status(const Case&)>& fn) {
  if (ids.empty()) return archive.for_each_case(fn);
  for (const std::string& id : ids) {
    auto c = archive.load_case(id);
    if (!c) return c.error();
    if (!*c) return input_error("unknown case '" + id + "' in " + archive.db().path() + " (see `failmap list`)");
    if (auto s = fn(**c); !s) return s;
  }
  return ok_status();
}

Error unusable(Archive& archive, const std::string& case_id, const std::string& what) {
  return input_error(archive.db().path() + ": case " + case_id + ", " + what);
}

Status check_hex(Archive& archive, const std::string& case_id, const std::string& field, const std::string& value) {
  if (is_sha256_hex(value)) return ok_status();
  return unusable(archive, case_id, "field " + field + ": '" + value + "' is not a SHA-256 hex digest (64 lower-case hex characters)");
}

// Localizes the difference between a stored observation document and the
// replayed one, field by field; both parse (the caller checked). False when
// every value is the same (only the bytes differ).
bool diff_observations(const Json& stored, const Json& replayed, DigestMismatch base, std::vector<DigestMismatch>* out) {
  std::size_t before = out->size();
  auto add = [&](std::string field, const Json* s, const Json* r) {
    DigestMismatch m = base;
    m.field = std::move(field);
    m.stored = s ? dump_compact(*s) : "null";
    m.recomputed = r ? dump_compact(*r) : "null";
    out->push_back(std::move(m));
  };
  auto member = [](const Json& j, const char* key) -> const Json* {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  };
  const Json* so = member(stored, "observations");
  const Json* ro = member(replayed, "observations");
  if (!so || !so->is_array() || so->size() != ro->size()) {
    add("observations", so, ro);
  } else {
    for (std::size_t i = 0; i < ro->size(); ++i) {
      for (const char* key : {"check", "actual", "expected", "passed"}) {
        const Json* s = member((*so)[i], key);
        const Json* r = member((*ro)[i], key);
        // Python's json.dumps text tells 3 from 3.0; compare that, not JSON equality.
        if (!s || dump_compact(*s) != dump_compact(*r))
          add("observations[" + std::to_string(i) + "]." + key, s, r);
      }
    }
  }
  const Json* sp = member(stored, "passed");
  const Json* rp = member(replayed, "passed");
  if (!sp || *sp != *rp) add("passed", sp, rp);
  return out->size() != before;
}

// Verifies one case; appends its mismatches to the report.
Status verify_one(Archive& archive, const Case& c, VerifyReport* report) {
  ++report->cases;
  std::vector<DigestMismatch>& out = report->mismatches;
  std::size_t before = out.size();
  auto stored = load_stored_digests(archive, c.id);
  if (!stored) return stored.error();
  if (stored->case_digest)
    if (auto s = check_hex(archive, c.id, "case_digest", *stored->case_digest); !s) return s;
  std::optional<std::map<std::string, std::string>> stored_fields;
  if (stored->field_digests) {
    auto f = parse_field_digests(*stored->field_digests, archive.db().path() + ": case " + c.id + ", field field_digests");
    if (!f) return f.error();
    stored_fields = std::move(*f);
  }
  auto add = [&](std::string strategy, std::string field, std::string s, std::string r) {
    out.push_back(DigestMismatch{c.id, std::move(strategy), std::move(field), std::move(s), std::move(r)});
  };

  // Fixtures are derived: the mechanism's templates at the binding.
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return unusable(archive, c.id, "field mechanism: unknown mechanism '" + c.mechanism + "'");
  auto templates = instantiate_fixtures(*m, c.params);
  if (!templates) return unusable(archive, c.id, "field params: " + templates.error().message);
  bool fixtures_differ = false;
  if (templates->size() != c.fixtures.size()) {
    add("", "fixtures", std::to_string(c.fixtures.size()) + " fixtures", std::to_string(templates->size()) + " fixtures");
    fixtures_differ = true;
  } else {
    for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
      const Fixture& got = c.fixtures[i];
      const Fixture& want = (*templates)[i];
      std::string at = "fixtures[" + std::to_string(i) + "].";
      if (got.label != want.label) add("", at + "label", got.label, want.label);
      std::string ga = python_json(Value::list(got.args)), wa = python_json(Value::list(want.args));
      if (ga != wa) add("", at + "args", ga, wa);
      std::string ge = python_json(got.expected), we = python_json(want.expected);
      if (ge != we) add("", at + "expected", ge, we);
    }
    fixtures_differ = out.size() != before;
  }

  // Replay every recorded run against the derived fixtures.
  Case replay_case = c;
  replay_case.fixtures = std::move(*templates);
  auto runs = archive.load_runs(c.id);
  if (!runs) return runs.error();
  std::vector<RunDigestInput> run_digests;
  for (const StoredRun& r : *runs) {
    ++report->runs;
    std::string strategy(strategy_name(r.strategy));
    if (auto s = check_hex(archive, c.id, strategy + " run digest", r.digest); !s) return s;
    auto outcome = run_strategy(replay_case, r.strategy);
    if (!outcome) return outcome.error();
    std::string document = observation_document(replay_case, *outcome);
    std::string digest = observation_digest(document);
    if (document != r.observation) {
      auto sj = parse_json_strict(r.observation, archive.db().path() + ": case " + c.id + ", " + strategy + " run observation");
      if (!sj) return input_error(sj.error().message + " (the observation is not valid JSON)");
      if (!diff_observations(*sj, *parse_json_strict(document, "replay"), DigestMismatch{c.id, strategy, "", "", ""}, &out))
        add(strategy, "observation", r.observation, document);  // same values, different bytes
    }
    if (r.exit_status != outcome->exit_status())
      add(strategy, "exit_status", std::to_string(r.exit_status), std::to_string(outcome->exit_status()));
    if (r.digest != digest) add(strategy, "digest", r.digest, digest);
    run_digests.push_back(RunDigestInput{r.strategy, outcome->exit_status(), std::move(digest)});
  }

  // Field digests name the field of a non-derived change (prose, title, ...).
  auto digests = compute_case_digests(c, run_digests);
  if (!digests) return digests.error();
  if (stored_fields) {
    for (const auto& [name, digest] : digests->fields) {
      if (name == "fixtures" && fixtures_differ) continue;  // already named precisely
      auto it = stored_fields->find(name);
      std::string s = it == stored_fields->end() ? "null" : it->second;
      if (s != digest) add("", name, s, digest);
    }
    for (const auto& [name, digest] : *stored_fields)
      if (!digests->fields.count(name)) add("", name, digest, "null");
  }
  // The case digest covers everything; report it only when nothing finer did.
  if (out.size() == before) {
    std::string s = stored->case_digest.value_or("null");
    if (s != digests->case_digest) add("", "case_digest", s, digests->case_digest);
  }
  return ok_status();
}

}  // namespace

Status refresh_case_digest(Archive& archive, const Case& c) {
  auto runs = archive.load_runs(c.id);
  if (!runs) return runs.error();
  std::vector<RunDigestInput> inputs;
  for (const StoredRun& r : *runs) inputs.push_back(RunDigestInput{r.strategy, r.exit_status, observation_digest(r.observation)});
  auto d = compute_case_digests(c, inputs);
  if (!d) return d.error();
  return store_case_digests(archive, c.id, *d);
}

Result<VerifyReport> verify_cases(Archive& archive, const std::vector<std::string>& ids) {
  VerifyReport report;
  auto s = for_cases(archive, ids, [&](const Case& c) { return verify_one(archive, c, &report); });
  if (!s) return s.error();
  return report;
}

Result<RegenerateReport> regenerate_digests(Archive& archive, const std::vector<std::string>& ids) {
  struct Pending {
    std::string case_id;
    std::vector<StoredRun> runs;  // with new digests
    CaseDigests digests;
  };
  RegenerateReport report;
  std::vector<Pending> writes;
  auto s = for_cases(archive, ids, [&](const Case& c) -> Status {
    ++report.cases;
    auto stored = load_stored_digests(archive, c.id);
    if (!stored) return stored.error();
    auto runs = archive.load_runs(c.id);
    if (!runs) return runs.error();
    Pending p{c.id, {}, {}};
    std::vector<RunDigestInput> inputs;
    for (StoredRun& r : *runs) {
      ++report.runs;
      std::string strategy(strategy_name(r.strategy));
      auto j = parse_json_strict(r.observation, archive.db().path() + ": case " + c.id + ", " + strategy + " run observation");
      if (!j) return input_error(j.error().message + " (the observation is not valid JSON)");
      std::string digest = observation_digest(r.observation);
      if (digest != r.digest) {
        report.changes.push_back(DigestMismatch{c.id, strategy, "digest", r.digest, digest});
        r.digest = digest;
        p.runs.push_back(r);
      }
      inputs.push_back(RunDigestInput{r.strategy, r.exit_status, digest});
    }
    auto d = compute_case_digests(c, inputs);
    if (!d) return d.error();
    std::string fields = field_digests_text(*d);
    bool changed = !p.runs.empty();
    if (stored->field_digests.value_or("null") != fields) {
      report.changes.push_back(DigestMismatch{c.id, "", "field_digests", stored->field_digests.value_or("null"), fields});
      changed = true;
    }
    if (stored->case_digest.value_or("null") != d->case_digest) {
      report.changes.push_back(DigestMismatch{c.id, "", "case_digest", stored->case_digest.value_or("null"), d->case_digest});
      changed = true;
    }
    p.digests = std::move(*d);
    if (changed) writes.push_back(std::move(p));
    return ok_status();
  });
  if (!s) return s.error();
  if (writes.empty()) return report;
  Transaction tx(archive.db());
  if (auto b = tx.begin(); !b) return b.error();
  for (const Pending& p : writes) {
    for (const StoredRun& r : p.runs)
      if (auto w = archive.record_run(r); !w) return w.error();
    if (auto w = store_case_digests(archive, p.case_id, p.digests); !w) return w.error();
  }
  if (auto c = tx.commit(); !c) return c.error();
  return report;
}

}  // namespace failmap
