#include "store/importer.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "core/parallel.h"
#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/text.h"
#include "io/bundle.h"
#include "io/case_file.h"
#include "io/digest.h"
#include "io/page.h"
#include "store/archive_digests.h"

namespace fs = std::filesystem;

namespace failmap {

bool same_case_content(const Case& a, const Case& b) {
  return dump_compact(case_to_json(a)) == dump_compact(case_to_json(b));
}

namespace {

// The members of the case records of a and b (case_to_json) that differ,
// in name order, one level into objects ("published.case_digest"), e.g.
// "summary, published.runs".
std::string differing_members(const Case& a, const Case& b) {
  std::vector<std::string> names;
  auto compare = [&](const Json& x, const Json& y, const std::string& prefix, auto& self) -> void {
    std::set<std::string> keys;
    for (const auto& [k, v] : x.items()) keys.insert(k);
    for (const auto& [k, v] : y.items()) keys.insert(k);
    for (const std::string& k : keys) {
      auto xi = x.find(k), yi = y.find(k);
      if (xi != x.end() && yi != y.end() && *xi == *yi) continue;
      if (prefix.empty() && xi != x.end() && yi != y.end() && xi->is_object() && yi->is_object())
        self(*xi, *yi, k + ".", self);
      else names.push_back(prefix + k);
    }
  };
  compare(case_to_json(a), case_to_json(b), "", compare);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

bool same_content_as_page_of(const Case& stored, const Case& c) {
  // A page's tier is the tier it was written at (its header): a member page
  // of an open case is that case, as the open page is.
  Case a = stored, b = c;
  a.published = {};
  b.published = {};
  b.tier = a.tier;
  if (!same_case_content(a, b)) return false;
  // The page failmap writes for the stored case at c's tier, read back as
  // import reads pages: its record is c exactly when c's published values
  // are the stored ones, and failmap's computation (render_page) for the
  // strategies and case digest the archive has none of.
  auto page = render_page(stored, c.tier);
  if (!page) return false;
  PageReading reread;
  std::vector<std::string> errors;
  return read_page(*page, c.id, &reread, &errors) && same_case_content(reread.record, c);
}

ImportSession::ImportSession(Archive& archive, ImportOptions options)
    : m_archive(archive), m_options(options), m_journal(archive.db()), m_tx(archive.db()), m_now(utc_now_iso8601()) {}

Status ImportSession::begin() {
  // A 32 MiB page cache: in WAL mode fewer pages spill to the log before the
  // commit writes them again. (With the rollback journal below, 8, 32 and
  // 128 MiB import 100,000 cases equally fast; 128 MiB took 172 MB of RSS,
  // 32 MiB 72 MB.)
  FAILMAP_TRY(m_archive.db().exec("PRAGMA cache_size = -32768"));
  // Into an archive without cases (one this import creates, typically)
  // nearly every page is new (RollbackJournal).
  FAILMAP_TRY_ASSIGN(auto any, m_archive.has_cases());
  if (!any) FAILMAP_TRY(m_journal.begin());
  FAILMAP_TRY(m_tx.begin());
  FAILMAP_TRY_ASSIGN(any, m_archive.has_cases());
  m_started_empty = !any;
  return ok_status();
}

bool ImportSession::storage(const Status& s, const std::string& source) {
  if (s) return true;
  m_errors.push_back(source + ": " + s.error().message);
  return false;
}

ImportSession::SeenAt ImportSession::seen_at(const std::string& source) {
  std::size_t colon = source.rfind(':');
  std::uint64_t line = 0;
  std::string_view file = source;
  if (colon != std::string::npos && colon + 1 < source.size() && colon + 20 > source.size() &&
      source.find_first_not_of("0123456789", colon + 1) == std::string::npos && source[colon + 1] != '0') {
    line = std::stoull(source.substr(colon + 1));
    file = std::string_view(source).substr(0, colon);
  }
  if (m_source_files.empty() || m_source_files.back() != file) m_source_files.emplace_back(file);
  return SeenAt{static_cast<std::uint32_t>(m_source_files.size() - 1), line};
}

std::string ImportSession::source_text(const SeenAt& at) const {
  const std::string& file = m_source_files[at.file];
  return at.line == 0 ? file : file + ":" + std::to_string(at.line);
}

void ImportSession::add_case(const Case& c, const std::string& source, const RepairSeal* seal) {
  add_case_with(c, source, seal, nullptr);
}

void ImportSession::add_case(const Case& c, const std::string& source, const RepairSeal* seal,
                             const PreparedCase& prepared) {
  add_case_with(c, source, seal, &prepared);
}

PreparedCase prepare_case(const Case& c) {
  PreparedCase p{compute_case_digests(c, {}, FieldDigests::Packed), {}};
  if (p.digests) p.texts = case_insert_texts(c, &*p.digests);
  return p;
}

void ImportSession::add_case_with(const Case& c, const std::string& source, const RepairSeal* seal,
                                  const PreparedCase* prepared) {
  report_progress(m_options.progress, 1);
  if (m_options.check_duplicates) {
    auto [it, inserted] = m_seen.emplace(c.id, seen_at(source));
    if (!inserted) {
      m_errors.push_back(source + ": case id " + c.id + " is also given by " + source_text(it->second));
      return;
    }
  }
  // Into an archive that began empty, an id not given before in this
  // session (m_seen) cannot exist: no lookup.
  Result<bool> exists = false;
  if (!m_started_empty || !m_options.check_duplicates) exists = m_archive.has_case(c.id);
  if (!exists) {
    m_errors.push_back(source + ": " + exists.error().message);
    return;
  }
  if (*exists) {
    auto old = m_archive.load_case(c.id);
    if (!old || !*old) {
      m_errors.push_back(source + ": " + (old ? "case vanished" : old.error().message));
      return;
    }
    if (same_case_content(**old, c) || same_content_as_page_of(**old, c)) {
      ++m_report.unchanged_count;
      if (m_options.keep_ids) m_report.unchanged.push_back(c.id);
      return;
    }
    if (m_options.on_conflict == OnConflict::Skip) {
      m_skipped.insert(c.id);
      m_report.skipped.push_back(ImportReport::Skipped{c.id, source, differing_members(**old, c)});
      return;
    }
    if (m_options.on_conflict == OnConflict::Refuse) {
      m_errors.push_back(
          source + ": case " + c.id +
          " already exists in the archive with different content (members that differ: " + differing_members(**old, c) +
          "; use --replace to overwrite; the previous version is kept, see `failmap history`)");
      return;
    }
    if (!storage(m_archive.save_history(**old, source, m_now), source)) return;
    auto dropped = m_archive.delete_case(c.id);
    if (!dropped) {
      m_errors.push_back(source + ": " + dropped.error().message);
      return;
    }
    m_report.runs_dropped += *dropped;
    ++m_report.replaced_count;
    if (m_options.keep_ids) m_report.replaced.push_back(c.id);
  } else {
    ++m_report.added_count;
    if (m_options.keep_ids) m_report.added.push_back(c.id);
  }
  if (*exists) {  // replaced: digests over whatever runs the archive keeps for the id
    if (storage(m_archive.insert_case(c, nullptr, seal), source)) storage(refresh_case_digest(m_archive, c), source);
    return;
  }
  // A new id has no runs (runs reference cases), so its digests are those of
  // the case alone and go in with the row: no UPDATE, no run lookups.
  std::optional<PreparedCase> computed;
  if (!prepared) prepared = &computed.emplace(prepare_case(c));
  if (!prepared->digests) {
    m_errors.push_back(source + ": " + prepared->digests.error().message);
    return;
  }
  if (!storage(m_archive.insert_case(c, &*prepared->digests, seal, &prepared->texts), source)) return;
  // Into an archive that began empty nothing was there before this import.
  if (m_options.find_same_content && !m_started_empty) {
    m_added_checks.emplace_back(c.id, sha256_bytes(prepared->texts.fixture_values));
    m_added_ids.insert(c.id);
  }
}

void ImportSession::add_run(const RunRecord& r, const std::string& source) {
  auto exists = m_archive.has_case(r.case_id);
  if (!exists) {
    m_errors.push_back(source + ": " + exists.error().message);
    return;
  }
  if (!*exists) {
    if (!m_unreadable_records)
      m_errors.push_back(source + ": run of case " + r.case_id +
                         ", which is neither in the archive nor given before it");
    return;
  }
  if (m_skipped.count(r.case_id)) {  // a run of the input's version, not of the archive's
    ++m_report.runs_skipped;
    return;
  }
  // The run must be the one the compiled strategy gives over the case as
  // it will stand in the archive: its digests alone prove nothing, since
  // anyone can recompute them after an edit (schema/DIGESTS.md).
  auto c = m_archive.load_case(r.case_id);
  if (!c || !*c) {
    m_errors.push_back(source + ": " + (c ? "case " + r.case_id + " vanished" : c.error().message));
    return;
  }
  // Reported, and the import goes on (it will be rolled back), so that the
  // checks after it — the bundle's case digest over its runs — still speak.
  if (auto problem = replay_run_record(**c, r, source, 0)) m_errors.push_back(describe(*problem));
  auto old = m_archive.load_run(r.case_id, r.strategy);
  if (!old) {
    m_errors.push_back(source + ": " + old.error().message);
    return;
  }
  if (*old && (*old)->observation == r.observation && (*old)->digest == r.digest &&
      (*old)->exit_status == r.exit_status && (*old)->failmap_version == r.failmap_version &&
      (*old)->recorded_at == r.recorded_at) {
    ++m_report.runs_unchanged;
    return;
  }
  if (!storage(m_archive.record_run(r), source)) return;
  ++m_report.runs_added;
  if (*old) ++m_report.runs_replaced;
  // The case digest covers the runs' observation digests (schema/DIGESTS.md).
  storage(refresh_case_digest(m_archive, **c), source);
}

void ImportSession::add_disagreements(const std::vector<Disagreement>& ds) {
  for (const Disagreement& d : ds)
    if (storage(m_archive.record_disagreement(d), d.source)) ++m_report.disagreements;
}

Result<ImportReport> ImportSession::finish() {
  if (!m_errors.empty()) {
    m_tx.rollback();
    m_journal.end();
    return input_error(std::to_string(m_errors.size()) + " problem(s); nothing was imported");
  }
  if (Status s = find_same_content(); !s) {
    m_tx.rollback();
    m_journal.end();
    return s.error();
  }
  FAILMAP_TRY(m_tx.commit());
  m_journal.end();
  return std::move(m_report);
}

Status ImportSession::find_same_content() {
  if (m_added_checks.empty()) return ok_status();
  std::map<Sha256Bytes, std::vector<std::string>> same_as;  // checks -> cases held before, in id order
  for (const auto& [id, checks] : m_added_checks) same_as[checks];
  FAILMAP_TRY_ASSIGN(auto rows, m_archive.db().prepare("SELECT id, fixture_values FROM cases ORDER BY id"));
  FAILMAP_TRY(rows.for_each_row([&]() -> Status {
    if (m_added_ids.count(std::string(rows.column_view(0)))) return ok_status();
    if (auto it = same_as.find(sha256_bytes(rows.column_view(1))); it != same_as.end())
      it->second.push_back(rows.column_text(0));
    return ok_status();
  }));
  for (const auto& [id, checks] : m_added_checks)
    if (const std::vector<std::string>& as = same_as[checks]; !as.empty())
      m_report.same_content.push_back(ImportReport::SameContent{id, as});
  return ok_status();
}

namespace {

void import_case_file(ImportSession& session, const fs::path& file) {
  Case c;
  if (read_case_file(file, &c, &session.errors())) session.add_case(c, file.string());
}

void import_page(ImportSession& session, const fs::path& file) {
  auto text = read_file(file);
  if (!text) {
    session.add_error(text.error().message);
    return;
  }
  PageReading page;
  if (!read_page(*text, file.string(), &page, &session.errors())) return;
  if (!page.disagreements.empty() && session.options().on_disagreement == OnDisagreement::Refuse) {
    // One error per disagreeing cell; the last says how many and what --force
    // does (a line of its own would count as one more problem).
    for (std::size_t i = 0; i < page.disagreements.size(); ++i) {
      std::string line = describe(page.disagreements[i]);
      if (i + 1 == page.disagreements.size())
        line += " (the page disagrees with the computed tables in " + std::to_string(page.disagreements.size()) +
                " place(s); --force imports it and records them)";
      session.add_error(line);
    }
    return;
  }
  // Disagreements belong to the version of the case they were found with:
  // recorded when it is added or replaced, not again for identical content.
  std::uint64_t written = session.cases_written();
  session.add_case(page.record, file.string());
  if (session.cases_written() != written) session.add_disagreements(page.disagreements);
}

// The repair seal a bundle's case record carries: its salt (member tier) or,
// without one, its published commitment (schema/DIGESTS.md "Repair
// commitments"). The schema has checked both are 64 hex characters.
std::optional<RepairSeal> seal_from_record(const Json& j, Tier tier, const std::string& where, ProblemSink problems) {
  auto salt = j.find(k_repair_salt_member);
  auto commitment = j.find(k_repair_commitment_member);
  if (salt != j.end() && tier != Tier::Member) {
    problems.add(input_problem(where, 0, k_repair_salt_member, "a repair salt in an open-tier bundle"));
    return std::nullopt;
  }
  if (salt != j.end()) {
    auto bytes = parse_salt_hex(salt->get<std::string>(), where + ": field '" + k_repair_salt_member + "'");
    if (!bytes) {
      problems.add(input_problem("", 0, "", bytes.error().message));  // the message names its place
      return std::nullopt;
    }
    return RepairSeal{*bytes, {}};
  }
  if (commitment != j.end()) return RepairSeal{std::nullopt, commitment->get<std::string>()};
  return std::nullopt;
}

// One line of a bundle's data file made ready off the calling thread: parsed,
// checked and converted, a case's digests computed. What the calling thread
// then does with it (apply in import_bundle) is the session's archive work.
struct PreparedLine {
  std::vector<std::string> errors;  // in the order a single thread finds them
  std::string type;                 // the "record" value, counted; "" when there is none
  enum class Action { None, AddCase, AddRun } action = Action::None;
  std::string where;  // FILE:LINE
  Case c;
  std::optional<RepairSeal> seal;
  PreparedCase prepared;                   // what a new case needs, computed here
  std::optional<std::string> case_digest;  // the record's case_digest, as given
  RunRecord run;
};

// A member-tier record's repair commitment against the one its salt and the
// compiled repair give (schema/DIGESTS.md "Repair commitments"), as
// verify-bundle checks it: a bundle whose repair does not match what it
// commits to is refused, not stored with its salt.
void check_repair_commitment(const Json& j, const Case& c, const RepairSeal& seal, const std::string& where,
                             ProblemSink problems) {
  auto given = j.find(k_repair_commitment_member);
  if (!seal.salt || given == j.end()) return;
  auto repaired = replay_repaired(c);
  if (!repaired) return problems.add(input_problem(where, 0, "", repaired.error().message));
  auto canonical = canonical_repaired_record(c, *repaired);
  if (!canonical) return problems.add(input_problem(where, 0, "", canonical.error().message));
  std::string recomputed = repair_commitment(*seal.salt, *canonical);
  if (recomputed == given->get<std::string>()) return;
  InputProblem mismatch = input_problem(
      where, 0, k_repair_commitment_member,
      "case " + c.id + ": the repair does not match its commitment (SHA-256 of salt and canonical repaired record): " +
          "recomputed " + recomputed + ", the record says " + given->get<std::string>());
  mismatch.kind = InputProblem::Kind::Mismatch;
  problems.add(std::move(mismatch));
}

PreparedLine prepare_line(JsonlLines::Item& item, const std::string& file, Tier tier, int version) {
  PreparedLine p;
  if (!item.problem.empty()) {
    p.errors.push_back(std::move(item.problem));
    return p;
  }
  auto j = parse_jsonl_line(item.text, file, item.line);
  if (!j) {
    p.errors.push_back(j.error().message);
    return p;
  }
  p.where = file + ":" + std::to_string(item.line);
  const std::string& where = p.where;
  auto kind = j->is_object() ? j->find("record") : j->end();
  if (!j->is_object() || kind == j->end() || !kind->is_string()) {
    p.errors.push_back(where + ": field 'record': expected \"mechanism\", \"case\" or \"run\"");
    return p;
  }
  p.type = kind->get<std::string>();
  if (p.type == "mechanism") {
    check_mechanism_record(*j, tier, where, 0, &p.errors);
  } else if (p.type == "case") {
    if (!case_record_to_case_json(*j, version, where, &p.errors) || !case_from_json(*j, where, &p.c, &p.errors))
      return p;
    for (const PublishedRun& r : p.c.published.runs)
      if (!tier_shows(tier, r.strategy))
        p.errors.push_back(where + ": published digest of the " + std::string(strategy_name(r.strategy)) +
                           " strategy in " + (tier == Tier::Open ? "an open" : "a member") + "-tier bundle");
    p.seal = seal_from_record(*j, tier, where, &p.errors);
    if (p.seal) check_repair_commitment(*j, p.c, *p.seal, where, &p.errors);
    // Every bundle case record carries both (export writes them; verify-bundle
    // reports their absence): a record without them would escape the checks.
    for (const char* member : {k_case_digest_member, k_repair_commitment_member})
      if (!j->contains(member))
        p.errors.push_back(where + ": field '" + member + "': missing (every case record of a bundle carries it)");
    if (auto d = j->find(k_case_digest_member); d != j->end()) p.case_digest = d->get<std::string>();
    // A record without a seal gets a fresh salt, as insert_case would make.
    if (!p.seal)
      if (auto salt = make_repair_salt()) p.seal = RepairSeal{*salt, {}};
    p.prepared = prepare_case(p.c);
    p.action = PreparedLine::Action::AddCase;
  } else if (p.type == "run") {
    if (!run_from_record(*j, where, 0, &p.run, &p.errors)) return p;
    if (!tier_shows(tier, p.run.strategy)) {
      p.errors.push_back(where + ": a " + std::string(strategy_name(p.run.strategy)) + " run in " +
                         (tier == Tier::Open ? "an open" : "a member") + "-tier bundle");
      return p;
    }
    p.action = PreparedLine::Action::AddRun;
  } else {
    p.errors.push_back(where + ": field 'record': unknown record type '" + p.type + "'");
  }
  return p;
}

// Reads every line or problem of `lines`, prepares each on `jobs` threads
// beside the calling one (core/parallel.h; the calling thread alone when
// jobs is 1) and hands them to `apply` on the calling thread in file order,
// which then does nothing but read and apply (the archive's writes), as
// `run --all` steps SQLite while its threads evaluate. Threads claim 64 lines at a time; at most a
// few such chunks per thread are prepared ahead of `apply`, so memory does
// not grow with the file.
void prepare_in_order(JsonlLines& lines, unsigned jobs, const std::function<PreparedLine(JsonlLines::Item&)>& prepare,
                      const std::function<void(PreparedLine&)>& apply) {
  ParallelOptions options;
  options.jobs = jobs;
  options.chunk = 64;
  options.caller = CallerRole::ConsumesOnly;  // applying is the slower side
  OrderedPipeline<JsonlLines::Item, PreparedLine> pipeline(options, prepare,
                                                           [&](JsonlLines::Item&, PreparedLine&& p) -> Status {
                                                             apply(p);
                                                             return ok_status();
                                                           });
  JsonlLines::Item item;
  while (lines.next(&item))
    if (!pipeline.submit(std::move(item))) break;
  (void)pipeline.finish();  // apply never stops it
}

void import_bundle(ImportSession& session, const fs::path& dir) {
  // Everything but the files' hashes first: a bundle that fails that is
  // reported as before, by the whole check, and no record is read.
  std::vector<std::string> layout_errors;
  auto manifest = check_bundle(dir, &layout_errors, false);
  if (!manifest || manifest->format == "failmap-pages") manifest = check_bundle(dir, &session.errors());
  if (!manifest) return;
  // The open build cannot check (or hold) what a member bundle commits to.
  if (manifest->tier == Tier::Member && !k_build_has_repairs)
    return session.add_error(no_repairs_error(dir.string() + ": a member-tier bundle").message);
  // The records are read while another thread hashes the files (reading
  // 200 MB twice in a row left a core idle for the first tenth of an
  // import). A file whose hash does not match gives the check's errors
  // alone, as if its records had never been read: their errors are dropped
  // (they come from the same damage), and nothing is imported.
  // (A std::async future waits for its thread when destroyed, also when an
  // exception leaves this function.)
  std::future<std::vector<std::string>> hashed;
  std::size_t errors_before = session.errors().size();
  if (layout_errors.empty() && manifest->format != "failmap-pages")
    hashed = std::async(std::launch::async, [dir] {
      std::vector<std::string> errors;
      (void)check_bundle(dir, &errors);
      return errors;
    });
  auto hashes_checked = [&]() -> bool {
    if (!hashed.valid()) return true;
    std::vector<std::string> errors = hashed.get();
    if (errors.empty()) return true;
    session.errors().resize(errors_before);
    for (std::string& e : errors) session.add_error(std::move(e));
    return false;
  };
  if (manifest->format == "failmap-pages") {
    for (const std::string& f : manifest->files) {
      if (fs::path(f).extension() == ".txt") import_page(session, dir / f);
      else session.add_error((dir / f).string() + ": a page export holds only *.txt pages");
    }
    return;
  }
  // mechanisms first, runs last, so every run's case is known before it.
  std::vector<std::string> order;
  auto listed = [&](const char* name) {
    return std::find(manifest->files.begin(), manifest->files.end(), name) != manifest->files.end();
  };
  if (listed(k_mechanisms_file)) order.push_back(k_mechanisms_file);
  for (const std::string& f : manifest->files)
    if (f != k_mechanisms_file && f != k_runs_file) order.push_back(f);
  if (listed(k_runs_file)) order.push_back(k_runs_file);
  std::map<std::string, std::uint64_t> counts;
  std::uint64_t unreadable = 0;  // lines already reported whose record type is unknown
  Tier tier = manifest->tier;
  const int version = manifest->format_version;  // the name of a case record's tier (case_record_to_case_json)
  // Each case record's case_digest must be the digest of the record and the
  // bundle's runs of the case (schema/DIGESTS.md "Bundle digests"), as
  // verify-bundle checks it. A case the bundle has no run of is checked as
  // its record arrives. The others are checked once every run is in: the
  // given digest and which strategies the bundle ran wait in a temporary
  // table (memory does not grow with the bundle), and the runs are the
  // archive's, which the import has just made the bundle's.
  // (The manifest counts every record type a bundle holds; a run it does not
  // count is reported below, and makes its case's digest differ.)
  bool bundle_has_runs = manifest->counts.count("run") && manifest->counts.at("run") > 0;
  Database& db = session.archive().db();
  std::optional<Statement> remember_digest, remember_run;
  auto digest_differs = [&](const std::string& where, const std::string& id, const std::string& given,
                            const std::string& recomputed) {
    session.add_error(where + ": field '" + k_case_digest_member + "': case " + id +
                      ": differs from the digest of the record and its runs (recomputed " + recomputed +
                      ", the record says " + given + ")");
  };
  auto storage_error = [&](const Status& st) {
    if (!st) session.add_error(db.path() + ": " + st.error().message);
    return st.ok();
  };
  if (bundle_has_runs) {
    if (!storage_error(db.exec("CREATE TEMP TABLE IF NOT EXISTS import_case_digests (case_id TEXT PRIMARY KEY, "
                               "digest TEXT NOT NULL, source TEXT NOT NULL, strategies INTEGER NOT NULL DEFAULT 0); "
                               "DELETE FROM temp.import_case_digests;")))
      return;
    auto a = db.prepare("INSERT OR REPLACE INTO temp.import_case_digests(case_id, digest, source) VALUES (?1, ?2, ?3)");
    auto b = db.prepare("UPDATE temp.import_case_digests SET strategies = strategies | ?2 WHERE case_id = ?1");
    if (!a || !b) return session.add_error(db.path() + ": " + (a ? b.error() : a.error()).message);
    remember_digest.emplace(std::move(*a));
    remember_run.emplace(std::move(*b));
  }
  for (const std::string& f : order) {
    fs::path file = dir / f;
    if (file.extension() != ".jsonl") {
      session.add_error(file.string() + ": a bundle holds only *.jsonl data files");
      continue;
    }
    auto lines = JsonlLines::open(file);
    if (!lines) {
      session.add_error(lines.error().message);
      continue;
    }
    prepare_in_order(
        *lines, session.options().jobs,
        [&](JsonlLines::Item& item) { return prepare_line(item, lines->where(), tier, version); },
        [&](PreparedLine& p) {
          if (!p.errors.empty() && p.action == PreparedLine::Action::None) session.note_unreadable_record();
          if (p.type.empty() && !p.errors.empty()) ++unreadable;
          for (std::string& e : p.errors) session.add_error(std::move(e));
          if (!p.type.empty()) ++counts[p.type];
          if (p.action == PreparedLine::Action::AddCase) {
            if (p.case_digest && p.errors.empty() && !remember_digest && p.prepared.digests &&
                p.prepared.digests->case_digest != *p.case_digest)
              digest_differs(p.where, p.c.id, *p.case_digest, p.prepared.digests->case_digest);
            session.add_case(p.c, p.where, p.seal ? &*p.seal : nullptr, p.prepared);
            // A skipped case keeps the archive's version: the record's digest
            // over the bundle's runs, which are not recorded, is not checked
            // against it.
            if (p.case_digest && p.errors.empty() && remember_digest && !session.skipped(p.c.id)) {
              remember_digest->bind(1, p.c.id);
              remember_digest->bind(2, *p.case_digest);
              remember_digest->bind(3, p.where);
              storage_error(remember_digest->run());
            }
          } else if (p.action == PreparedLine::Action::AddRun) {
            if (remember_run) {
              remember_run->bind(1, p.run.case_id);
              remember_run->bind(2, std::int64_t{1} << static_cast<int>(p.run.strategy));
              storage_error(remember_run->run());
            }
            session.add_run(p.run, p.where);
          }
        });
  }
  if (!hashes_checked()) return;
  // The cases with runs: the record as the archive now holds it (new,
  // replaced or identical) and its runs of the strategies the bundle ran.
  if (remember_digest && session.errors().empty()) {
    auto st = db.prepare("SELECT case_id, digest, source, strategies FROM temp.import_case_digests ORDER BY case_id");
    if (!st) return session.add_error(db.path() + ": " + st.error().message);
    if (Status each = st->for_each_row([&]() -> Status {
          std::string id = st->column_text(0), given = st->column_text(1), where = st->column_text(2);
          std::int64_t strategies = st->column_int(3);
          auto c = session.archive().load_case(id);
          auto runs = session.archive().load_runs(id);
          if (!c || !*c || !runs) {
            session.add_error(where + ": " + (!c ? c.error().message : !runs ? runs.error().message : "case vanished"));
            return ok_status();
          }
          std::vector<RunDigestInput> inputs;
          for (const RunRecord& r : *runs)
            if (strategies & (std::int64_t{1} << static_cast<int>(r.strategy)))
              inputs.push_back(RunDigestInput{r.strategy, r.exit_status, r.digest});
          auto recomputed = case_digest(**c, inputs);
          if (!recomputed) {
            session.add_error(where + ": " + recomputed.error().message);
            return ok_status();
          }
          if (*recomputed != given) digest_differs(where, id, given, *recomputed);
          return ok_status();
        });
        !each)
      return session.add_error(db.path() + ": " + each.error().message);
  }
  if (remember_digest) storage_error(db.exec("DELETE FROM temp.import_case_digests"));
  std::string where = (dir / k_manifest_file).string() + ": field 'counts";
  // A line already reported as unreadable may be any record: a count it can
  // explain is not reported a second time for the same fault.
  for (const auto& [type, n] : manifest->counts)
    if (counts[type] > n || counts[type] + unreadable < n)
      session.add_error(where + "." + type + "': says " + std::to_string(n) + ", the bundle holds " +
                        std::to_string(counts[type]));
  for (const auto& [type, n] : counts)
    if (!manifest->counts.count(type)) session.add_error(where + "': has no count of '" + type + "' records");
}

// `folders`: canonical paths of the folders being walked (the current one's
// ancestors), so a link back to one of them is refused, not followed forever.
void import_path(ImportSession& session, const fs::path& p, bool top, std::vector<fs::path>& folders) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) {
    session.add_error(p.string() + ": no such file or folder");
    return;
  }
  if (fs::is_directory(st)) {
    fs::path real = fs::canonical(p, ec);
    if (ec) {
      session.add_error(p.string() + ": " + ec.message());
      return;
    }
    if (std::find(folders.begin(), folders.end(), real) != folders.end()) {
      session.add_error(p.string() + ": a link back to the folder " + real.string() + " being imported; not followed");
      return;
    }
    if (fs::exists(p / k_manifest_file, ec)) {
      import_bundle(session, p);
      return;
    }
    // A bundle that lost its manifest: say so, not "holds no case files".
    if (fs::exists(p / "SHA256SUMS", ec) && fs::exists(p / k_cases_file, ec)) {
      session.add_error(p.string() + ": " + k_manifest_file + ": missing (the folder holds SHA256SUMS and " +
                        k_cases_file + ", a bundle without its manifest)");
      return;
    }
    std::vector<fs::path> entries;
    for (auto it = fs::directory_iterator(p, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const fs::path& e = it->path();
      std::error_code entry_ec;
      if (it->is_directory(entry_ec) || e.extension() == ".json" || e.extension() == ".txt") entries.push_back(e);
    }
    if (ec) session.add_error(p.string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end());
    if (top && entries.empty())
      session.add_error(p.string() + ": folder holds no case files (*.json), pages (*.txt) or bundles");
    folders.push_back(real);
    for (const fs::path& e : entries) import_path(session, e, false, folders);
    folders.pop_back();
    return;
  }
  if (!fs::is_regular_file(st)) {  // a FIFO or device would block or never end
    session.add_error(p.string() + ": not a regular file (a pipe, socket or device cannot be imported)");
    return;
  }
  if (p.extension() == ".json") import_case_file(session, p);
  else if (p.extension() == ".txt") import_page(session, p);
  else session.add_error(p.string() + ": not a case file (*.json), page (*.txt), bundle or folder");
}

}  // namespace

std::uint64_t count_import_cases(const std::vector<std::string>& paths) {
  std::uint64_t n = 0;
  std::vector<fs::path> folders;  // as in import_path: links back are not followed
  std::function<void(const fs::path&)> count = [&](const fs::path& p) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      n += p.extension() == ".json" || p.extension() == ".txt" ? 1 : 0;
      return;
    }
    if (fs::exists(p / k_manifest_file, ec)) {
      // The manifest's counts only size the progress bar: no hashing here
      // (import_bundle checks every file once; a 100,000-case bundle is 200 MB).
      auto text = read_file(p / k_manifest_file);
      if (!text) return;
      auto m = parse_json_file(*text, (p / k_manifest_file).string());
      if (!m || !m->is_object() || !m->contains("counts") || !(*m)["counts"].is_object()) return;
      const Json& counts = (*m)["counts"];
      for (const char* kind : {"case", "page"})
        if (auto it = counts.find(kind); it != counts.end() && it->is_number_unsigned()) n += it->get<std::uint64_t>();
      return;
    }
    fs::path real = fs::canonical(p, ec);
    if (ec || std::find(folders.begin(), folders.end(), real) != folders.end()) return;
    folders.push_back(real);
    for (auto it = fs::directory_iterator(p, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      count(it->path());
    folders.pop_back();
  };
  for (const std::string& p : paths) count(p);
  return n;
}

void import_paths(ImportSession& session, const std::vector<std::string>& paths) {
  std::vector<fs::path> folders;
  for (const std::string& p : paths) import_path(session, p, true, folders);
}

}  // namespace failmap
