// `failmap verify` (verify_cases, store/archive_digests.h): every case read in one
// streaming pass (CaseRowReader: the cases and runs tables merged by case id),
// its fixtures compared with the mechanism's templates, every recorded run
// replayed through the compiled strategy and compared field by field
// (diff_observations), then its field and case digests; on `jobs` threads
// with a report identical to one thread's. Never writes. A case whose stored
// values do not read is one "unreadable" finding.
#include "store/archive_digests.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evaluate.h"
#include "core/parallel.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "io/observation.h"
#include "store/archive_digests_internal.h"

namespace failmap {

using digests_detail::stored_field_digests;

namespace {

Error unusable(Archive& archive, const std::string& case_id, const std::string& what) {
  return input_error(archive.db().path() + ": case " + case_id + ", " + what);
}

// Which members of a stored observation document are known to be stored,
// and so may be compared with the replayed one.
enum class StoredFields {
  All,       // the document verbatim, or rebuilt and matching the stored run digest
  Outcomes,  // as All, less each check's label and expected value: the
             // stored fixtures, which differ from the templates and are
             // named once as fixtures[i]
  Actuals,   // only the actual values: rebuilt, but not to the bytes the
             // run digest was taken of (a fixture edited after the run), so
             // its `passed` values are not the ones recorded
};

// Localizes the difference between a stored observation document and the
// replayed one, field by field, comparing the members `fields` says are
// stored; both parse (the caller checked). False when every compared value
// is the same.
bool diff_observations(const Json& stored, const Json& replayed, StoredFields fields, DigestMismatch base,
                       std::vector<DigestMismatch>* out) {
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
        std::string_view k = key;
        if (fields == StoredFields::Actuals && k != "actual") continue;
        if (fields == StoredFields::Outcomes && (k == "check" || k == "expected")) continue;
        const Json* s = member((*so)[i], key);
        const Json* r = member((*ro)[i], key);
        // Python's json.dumps text tells 3 from 3.0; compare that, not JSON equality.
        if (!s || dump_compact(*s) != dump_compact(*r)) add("observations[" + std::to_string(i) + "]." + key, s, r);
      }
    }
  }
  const Json* sp = member(stored, "passed");
  const Json* rp = member(replayed, "passed");
  if (fields != StoredFields::Actuals && (!sp || *sp != *rp)) add("passed", sp, rp);
  return out->size() != before;
}

// A case as verify reads it: the cases row decoded, fixtures as their stored
// JSON text (compared as text with the templates, parsed only when they
// differ), the recorded runs and the stored digests.
struct CaseRow {
  Case c;  // fixtures left empty
  struct FixtureText {
    std::string label, args, expected;
  };
  std::vector<FixtureText> fixtures;
  /// A runs row: the actual values, or the verbatim document when it does
  /// not rebuild from them (schema/005_compact_runs.sql).
  struct RunRow {
    StrategyKind strategy = StrategyKind::Broken;
    std::optional<std::string> actuals;
    std::string observation;
    int exit_status = 0;
    std::string digest;  // hex of the stored bytes
    std::size_t digest_bytes = 0;
  };
  std::vector<RunRow> runs;
  std::optional<std::string> case_digest;
  std::optional<std::map<std::string, std::string>> field_digests;
  /// Published values as stored (outside the case digest, schema/DIGESTS.md):
  /// the page's case digest ('' if none) and its run digests, space-separated.
  std::string published_case_digest, published_run_digests;
  /// Why the row could not be read (a field that does not parse, a run of
  /// an unknown strategy): verify reports it and goes on with the next case.
  std::optional<std::string> unreadable;
};

constexpr const char* k_row_columns =
    "id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, "
    "why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, "
    "(SELECT digest FROM case_digests d WHERE d.case_id = cases.id), cases.field_digests, case_texts.field_digests, "
    "fixture_labels, fixture_values, published_case_digest, "
    "(SELECT group_concat(digest, ' ') FROM published_runs p WHERE p.case_id = cases.id)";

std::string blob_hex(const std::string& bytes) {
  return to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

Status decode_case_row(Archive& archive, Statement& st, CaseRow* row) {
  Case& c = row->c;
  c.id = st.column_text(0);
  std::string where = archive.db().path() + ": case " + c.id + ", field ";
  c.mechanism = st.column_text(1);
  c.variant = static_cast<int>(st.column_int(2));
  c.title = st.column_text(3);
  auto tier = parse_tier(st.column_text(4));
  if (!tier) return input_error(where + "tier: " + tier.error().message);
  c.tier = *tier;
  c.prose = CaseProse{st.column_text(5), st.column_text(6),  st.column_text(7), st.column_text(8),
                      st.column_text(9), st.column_text(10), st.column_text(11)};
  FAILMAP_TRY(decode_stored_params(st.column_view(12), c, archive.db().path() + ": case " + c.id));
  FAILMAP_TRY_ASSIGN(auto tags, parse_json_strict(st.column_text(13), where + "evaluation_group"));
  if (!tags.is_array())
    return input_error(where + "evaluation_group: expected a JSON array of strings, got " + describe_json_value(tags));
  for (const auto& t : tags) {
    if (!t.is_string())
      return input_error(where + "evaluation_group: expected a JSON array of strings, got " + describe_json_value(t) +
                         " in it");
    c.evaluation_group.push_back(t.get<std::string>());
  }
  c.recorded_runtime = st.column_text(14);
  c.recorded_at = st.column_text(15);
  if (!st.column_is_null(16)) {
    std::string bytes = st.column_blob(16);
    if (bytes.size() != 32)
      return input_error(where + "case_digest: '" + blob_hex(bytes) + "' is not a SHA-256 digest (32 bytes)");
    row->case_digest = blob_hex(bytes);
  }
  std::optional<std::string> row_blob;
  if (!st.column_is_null(17)) row_blob = st.column_blob(17);
  FAILMAP_TRY_ASSIGN(row->field_digests,
                     stored_field_digests(row_blob, st.column_view(18), archive.db().path() + ": case " + c.id));
  row->published_case_digest = st.column_text(21);
  row->published_run_digests = st.column_text(22);
  return ok_status();
}

// Streams CaseRows: every case in id order (two ordered scans merged by
// case id), or the named ones (the same statements bound per id).
class CaseRowReader {
 public:
  static Result<CaseRowReader> open(Archive& archive, bool named) {
    std::string where = named ? " WHERE id = ?1" : "";
    std::string where_case = named ? " WHERE case_id = ?1" : "";
    FAILMAP_TRY_ASSIGN(
        auto cases, archive.db().prepare(std::string("SELECT ") + k_row_columns +
                                         " FROM cases CROSS JOIN case_texts USING (text_id)" + where + " ORDER BY id"));
    FAILMAP_TRY_ASSIGN(auto runs, archive.db().prepare(
                                      "SELECT case_id, strategy, actuals, observation, exit_status, digest FROM runs" +
                                      where_case + " ORDER BY case_id, strategy"));
    return CaseRowReader(archive, std::move(cases), std::move(runs));
  }

  /// Binds the statements to one case id (named mode).
  void select(const std::string& id) {
    for (Cursor* cur : {&m_cases, &m_runs}) {
      cur->st.reset();
      cur->st.bind(1, id);
      cur->started = false;
    }
  }

  /// The next case, or false at the end.
  Result<bool> next(CaseRow* row) {
    *row = CaseRow{};
    for (Cursor* cur : {&m_cases, &m_runs}) FAILMAP_TRY(cur->start());
    if (!m_cases.has_row) return false;
    // A row that does not decode is recorded in it (row->unreadable) and
    // the cursors still move past it: one damaged case does not stop the
    // verification of the others. Only SQLite's own errors end it.
    auto unreadable = [&](const Error& e) {
      if (!row->unreadable) row->unreadable = e.message;
    };
    if (auto s = decode_case_row(*m_archive, m_cases.st, row); !s) unreadable(s.error());
    const std::string id = m_cases.st.column_text(0);
    row->c.id = id;
    if (!row->unreadable) {
      auto fixtures = split_stored_fixtures(m_cases.st.column_view(19), m_cases.st.column_view(20),
                                            m_archive->db().path() + ": case " + id);
      if (!fixtures) unreadable(fixtures.error());
      else
        for (const StoredFixtureText& f : *fixtures)
          row->fixtures.push_back({f.label, std::string(f.args), std::string(f.expected)});
    }
    while (m_runs.has_row && m_runs.st.column_text(0) < id) FAILMAP_TRY(m_runs.step());
    while (m_runs.has_row && m_runs.st.column_text(0) == id) {
      Statement& st = m_runs.st;
      std::int64_t k = st.column_int(1);
      if (k < 0 || k > 2) {
        unreadable(
            input_error(m_archive->db().path() + ": case " + id + ", run: unknown strategy " + std::to_string(k)));
        FAILMAP_TRY(m_runs.step());
        continue;
      }
      CaseRow::RunRow run;
      run.strategy = static_cast<StrategyKind>(k);
      if (!st.column_is_null(2)) run.actuals = st.column_text(2);
      run.observation = st.column_text(3);
      run.exit_status = static_cast<int>(st.column_int(4));
      std::string digest = st.column_blob(5);
      run.digest = blob_hex(digest);
      run.digest_bytes = digest.size();
      row->runs.push_back(std::move(run));
      FAILMAP_TRY(m_runs.step());
    }
    FAILMAP_TRY(m_cases.step());
    return true;
  }

 private:
  struct Cursor {
    Statement st;
    bool started = false;
    bool has_row = false;
    Status step() {
      FAILMAP_TRY_ASSIGN(has_row, st.step());
      return ok_status();
    }
    Status start() {
      if (started) return ok_status();
      started = true;
      return step();
    }
  };
  CaseRowReader(Archive& archive, Statement cases, Statement runs)
      : m_archive(&archive), m_cases{std::move(cases)}, m_runs{std::move(runs)} {}
  Archive* m_archive;
  Cursor m_cases, m_runs;
};

// Verifies one readable case; appends its mismatches to the report. Errors:
// a stored value that does not parse or replay (verify_one reports them).
Status verify_row(Archive& archive, CaseRow& row, VerifyReport* report) {
  Case& c = row.c;
  // Published digests are kept verbatim and left out of the case digest,
  // but a bundle or page can only hold 64 lower-case hex digits: one that
  // is not (an edit outside failmap) would make export write what import
  // refuses.
  if (!row.published_case_digest.empty() && !is_sha256_hex(row.published_case_digest))
    report->mismatches.push_back(
        DigestMismatch{c.id, "", "published_case_digest", row.published_case_digest, "64 lower-case hex digits"});
  std::string_view published = row.published_run_digests;
  for (std::size_t at = 0; at < published.size();) {
    std::size_t end = std::min(published.find(' ', at), published.size());
    if (std::string_view d = published.substr(at, end - at); !is_sha256_hex(d))
      report->mismatches.push_back(
          DigestMismatch{c.id, "", "published run digest", std::string(d), "64 lower-case hex digits"});
    at = end + 1;
  }
  std::vector<DigestMismatch>& out = report->mismatches;
  std::size_t before = out.size();
  auto add = [&](std::string strategy, std::string field, std::string s, std::string r) {
    out.push_back(DigestMismatch{c.id, std::move(strategy), std::move(field), std::move(s), std::move(r)});
  };

  // Fixtures are derived: the mechanism's templates at the binding, compared
  // as the JSON text they are stored as.
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return unusable(archive, c.id, "field mechanism: unknown mechanism '" + c.mechanism + "'");
  auto templates = instantiate_fixtures(*m, c.params);
  if (!templates) return unusable(archive, c.id, "field params: " + templates.error().message);
  bool fixtures_differ = false;
  if (templates->size() != row.fixtures.size()) {
    add("", "fixtures", std::to_string(row.fixtures.size()) + " fixtures",
        std::to_string(templates->size()) + " fixtures");
    fixtures_differ = true;
  }
  for (std::size_t i = 0; i < row.fixtures.size() && !fixtures_differ; ++i) {
    const CaseRow::FixtureText& got = row.fixtures[i];
    const Fixture& want = (*templates)[i];
    std::string at = "fixtures[" + std::to_string(i) + "].";
    if (got.label != want.label) add("", at + "label", got.label, want.label);
    std::string wa = python_json(Value::list(want.args)), we = python_json(want.expected);
    if (got.args != wa) add("", at + "args", got.args, wa);
    if (got.expected != we) add("", at + "expected", got.expected, we);
  }
  fixtures_differ = fixtures_differ || out.size() != before;
  if (fixtures_differ) {
    // The case digest covers the stored fixtures: they must at least parse.
    for (const CaseRow::FixtureText& ft : row.fixtures) {
      std::string at = archive.db().path() + ": case " + c.id + ", fixture '" + ft.label + "' field ";
      Fixture f{ft.label, {}, {}};
      FAILMAP_TRY_ASSIGN(auto args, parse_json_strict(ft.args, at + "args"));
      FAILMAP_TRY_ASSIGN(auto a, value_from_json(args, at + "args"));
      if (!a.is_list()) return input_error(at + "args: expected a JSON array, got " + describe_json_value(args));
      f.args = a.as_list();
      FAILMAP_TRY_ASSIGN(auto e, parse_json_strict(ft.expected, at + "expected"));
      FAILMAP_TRY_ASSIGN(f.expected, value_from_json(e, at + "expected"));
      c.fixtures.push_back(std::move(f));
    }
  }

  // Replay every recorded run against the derived fixtures.
  Case replay_case = fixtures_differ ? c : Case{};
  if (fixtures_differ) replay_case.fixtures = *templates;
  else c.fixtures = std::move(*templates);
  const Case& replay = fixtures_differ ? replay_case : c;
  std::vector<RunDigestInput> run_digests;
  for (const CaseRow::RunRow& r : row.runs) {
    ++report->runs;
    std::string strategy(strategy_name(r.strategy));
    if (r.digest_bytes != 32)
      return unusable(archive, c.id,
                      "field " + strategy + " run digest: '" + r.digest + "' is not a SHA-256 digest (32 bytes)");
    FAILMAP_TRY_ASSIGN(auto outcome, run_strategy(replay, r.strategy));
    std::string document = observation_document(replay, outcome);
    std::string digest = observation_digest(document);
    // The stored document: verbatim, or rebuilt from the stored actual
    // values against the stored fixtures (schema/005_compact_runs.sql). The
    // rebuilt document is the recorded one only when the run digest is its
    // digest; otherwise (a fixture or binding edited after the run) only its
    // actual values were stored, and only they are compared: a `passed`
    // recomputed against edited expected values was never recorded.
    std::string stored_document = r.observation;
    StoredFields fields = StoredFields::All;
    if (r.actuals) {
      std::string where = archive.db().path() + ": case " + c.id + ", " + strategy + " run actuals";
      FAILMAP_TRY_ASSIGN(auto v, parse_value_text(*r.actuals, where));
      if (!v.is_list()) return input_error(where + ": expected a JSON list of actual values");
      // The same values spelled otherwise than failmap writes them (e.g.
      // 1.7500000000000001 for 1.75) rebuild the same document: named here.
      if (std::string spelled = python_json(v); spelled != *r.actuals) add(strategy, "actuals", *r.actuals, spelled);
      std::string rebuilt;
      if (v.as_list().size() == c.fixtures.size())
        rebuilt = observation_document(c, outcome_from_actuals(c, r.strategy, v.as_list()));
      // (Most runs replay to the stored document: its digest is known.)
      if (!rebuilt.empty() && (rebuilt == document ? digest : observation_digest(rebuilt)) == r.digest) {
        stored_document = std::move(rebuilt);
        fields = fixtures_differ ? StoredFields::Outcomes : StoredFields::All;
      } else if (v.as_list().size() == replay.fixtures.size()) {
        // The actual values placed in a document of the replayed fixtures.
        stored_document =
            observation_document(replay, outcome_from_actuals(replay, r.strategy, std::move(v.as_list())));
        fields = StoredFields::Actuals;
      } else {
        std::string replayed;
        append_actuals_text(replayed, outcome);
        // Worded as `digest regenerate` refuses it (outcome_from_actuals_text).
        add(strategy, "actuals",
            *r.actuals + " (" + actuals_count_mismatch(v.as_list().size(), replay.fixtures.size()) + ")", replayed);
        stored_document = document;  // nothing finer to compare
      }
    }
    if (document != stored_document) {
      auto sj = parse_json_strict(stored_document,
                                  archive.db().path() + ": case " + c.id + ", " + strategy + " run observation");
      if (!sj) return input_error(sj.error().message + " (the observation is not valid JSON)");
      if (!diff_observations(*sj, *parse_json_strict(document, "replay"), fields,
                             DigestMismatch{c.id, strategy, "", "", ""}, &out) &&
          fields == StoredFields::All)
        add(strategy, "observation", stored_document, document);  // same values, different bytes
    }
    if (r.exit_status != outcome.exit_status())
      add(strategy, "exit_status", std::to_string(r.exit_status), std::to_string(outcome.exit_status()));
    if (r.digest != digest) add(strategy, "digest", r.digest, digest);
    run_digests.push_back(RunDigestInput{r.strategy, outcome.exit_status(), std::move(digest)});
  }

  // The case digest covers everything; the field digests name the field of
  // a non-derived change (prose, title, binding, ...), and are compared
  // whether or not the case digest matches: a field digest damaged alone is
  // what a recorded run refuses (check_field_digests), so verify names it.
  // The case digest itself is reported only when nothing finer was.
  std::string digest;
  if (row.field_digests) {
    const auto* stored_fields = &*row.field_digests;
    FAILMAP_TRY_ASSIGN(auto digests, compute_case_digests(c, run_digests));
    for (const auto& [name, d] : digests.fields) {
      if (name == "fixtures" && fixtures_differ) continue;  // already named precisely
      auto it = stored_fields->find(name);
      std::string s = it == stored_fields->end() ? "null" : it->second;
      if (s != d) add("", name, s, d);
    }
    for (const auto& [name, d] : *stored_fields)
      if (!digests.fields.count(name)) add("", name, d, "null");
    digest = std::move(digests.case_digest);
  } else {
    ++report->without_field_digests;
    FAILMAP_TRY_ASSIGN(digest, case_digest(c, run_digests));
  }
  if (row.case_digest && *row.case_digest == digest) return ok_status();
  if (out.size() == before) add("", "case_digest", row.case_digest.value_or("null"), digest);
  return ok_status();
}

// Verifies one case; appends its mismatches to the report. A case that
// cannot be read or replayed (row.unreadable, or verify_row's error) is one
// finding, field "unreadable", in place of whatever it found before that.
void verify_one(Archive& archive, CaseRow& row, VerifyReport* report) {
  ++report->cases;
  const std::size_t mismatches = report->mismatches.size(), runs = report->runs,
                    without_field_digests = report->without_field_digests;
  Status s = row.unreadable ? Status(input_error(*row.unreadable)) : verify_row(archive, row, report);
  if (s) return;
  report->mismatches.resize(mismatches);
  report->runs = runs;  // none was replayed
  report->without_field_digests = without_field_digests;
  report->mismatches.push_back(DigestMismatch{row.c.id, "", "unreadable", s.error().message, ""});
}

}  // namespace

namespace {

// Verifies every case on `jobs` threads (core/parallel.h). The calling thread
// reads the rows while the others verify them, 16 at a time; each case
// reports into its own VerifyReport and they are merged in id order, so the
// report is exactly the one a single thread gives.
Result<VerifyReport> verify_all(Archive& archive, CaseRowReader& reader, unsigned jobs) {
  VerifyReport total;
  ParallelOptions options;
  options.jobs = jobs;
  options.chunk = 16;
  OrderedPipeline<CaseRow, VerifyReport> pipeline(
      options,
      [&archive](CaseRow& row) {
        VerifyReport one;
        verify_one(archive, row, &one);
        return one;
      },
      [&total](CaseRow&, VerifyReport&& one) -> Status {
        total.cases += one.cases;
        total.runs += one.runs;
        total.without_field_digests += one.without_field_digests;
        for (DigestMismatch& m : one.mismatches) total.mismatches.push_back(std::move(m));
        return ok_status();
      });
  Status read = ok_status();
  for (;;) {
    CaseRow row;
    auto more = reader.next(&row);
    if (!more) read = more.error();
    if (!more || !*more || !pipeline.submit(std::move(row))) break;
  }
  FAILMAP_TRY(pipeline.finish());
  FAILMAP_TRY(read);
  return total;
}

}  // namespace

namespace {

Result<VerifyReport> verify_case_rows(Archive& archive, const std::vector<std::string>& ids, unsigned jobs) {
  VerifyReport report;
  FAILMAP_TRY_ASSIGN(auto reader, CaseRowReader::open(archive, !ids.empty()));
  if (ids.empty()) return verify_all(archive, reader, jobs);
  CaseRow row;
  auto one = [&]() -> Result<bool> {
    auto more = reader.next(&row);
    if (!more || !*more) return more;
    verify_one(archive, row, &report);
    return true;
  };
  for (const std::string& id : ids) {
    reader.select(id);
    FAILMAP_TRY_ASSIGN(auto found, one());
    if (!found) return input_error("unknown case '" + id + "' in " + archive.db().path() + " (see `failmap list`)");
  }
  return report;
}

}  // namespace

namespace {

// An Input error naming the mechanisms of the cases (of `ids`, or every
// case) that this build does not compile, with their case counts; ok when
// there is none. Unknown ids are left to verify_case_rows.
Status check_mechanisms_compiled(Archive& archive, const std::vector<std::string>& ids) {
  std::map<std::string, std::int64_t> counts;
  if (ids.empty()) {
    FAILMAP_TRY_ASSIGN(counts, archive.case_counts_by_mechanism());
  } else {
    FAILMAP_TRY_ASSIGN(auto st, archive.db().prepare("SELECT mechanism_id FROM cases WHERE id = ?"));
    for (const std::string& id : ids) {
      st.bind(1, id);
      FAILMAP_TRY_ASSIGN(auto row, st.step());
      if (row) ++counts[st.column_text(0)];
      st.reset();
    }
  }
  std::string unknown;
  for (const auto& [mechanism, n] : counts)
    if (!find_mechanism(mechanism))
      unknown += (unknown.empty() ? "" : ", ") + ("'" + mechanism + "' (" + std::to_string(n) + " case(s))");
  if (unknown.empty()) return ok_status();
  return input_error(archive.db().path() + " holds cases of mechanism(s) unknown to this build (failmap " +
                     FAILMAP_VERSION + ", " + std::to_string(all_mechanisms().size()) +
                     " mechanisms compiled in, `failmap mechanisms` lists them): " + unknown +
                     ". The archive was written by a failmap that compiles them: verify it with that failmap or a "
                     "newer one, or name the cases of other mechanisms");
}

}  // namespace

Result<VerifyReport> verify_cases(Archive& archive, const std::vector<std::string>& ids, unsigned jobs) {
  FAILMAP_TRY(check_mechanisms_compiled(archive, ids));
  FAILMAP_TRY_ASSIGN(auto report, verify_case_rows(archive, ids, jobs));
  // A repair salt (or kept commitment) changed outside failmap: nothing
  // else covers it (schema/009_seal_digests.sql).
  FAILMAP_TRY_ASSIGN(auto seals, archive.seal_mismatches(ids));
  for (SealMismatch& m : seals)
    report.mismatches.push_back(DigestMismatch{std::move(m.case_id), "", "seal_digest (" + m.what + ")",
                                               std::move(m.stored), std::move(m.recomputed)});
  if (ids.empty()) {
    // Rows a case deleted outside failmap (foreign keys off) left behind: they
    // would block importing the case again, and no case row shows them.
    FAILMAP_TRY_ASSIGN(auto orphans, archive.orphan_rows());
    for (auto& [id, table] : orphans)
      report.mismatches.push_back(DigestMismatch{id, "", table, "row for this id", "no such case"});
  }
  std::stable_sort(report.mismatches.begin(), report.mismatches.end(),
                   [](const DigestMismatch& a, const DigestMismatch& b) { return a.case_id < b.case_id; });
  return report;
}

}  // namespace failmap
