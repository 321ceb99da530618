#include "io/bundle_verify.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>

#include "core/evaluate.h"
#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/sha256.h"
#include "encoding/signature.h"
#include "encoding/text.h"
#include "io/case_file.h"
#include "io/digest.h"
#include "io/observation.h"
#include "io/page.h"
#include "io/task.h"

namespace fs = std::filesystem;

namespace failmap {

namespace {

using Kind = InputProblem::Kind;

class Verifier {
 public:
  Verifier(const fs::path& dir, BundleVerifyReport& report) : m_dir(dir), m_report(report) {}

  void add(Kind kind, std::string file, std::uint64_t line, std::string field, std::string message,
           std::string expected = {}, std::string found = {}) {
    m_report.problems.push_back(InputProblem{kind, std::move(file), line, std::move(field), std::move(message),
                                             std::move(expected), std::move(found)});
  }
  // Problems from the readers, at their place; those of a Mismatch check as Mismatch.
  void add_problems(std::vector<InputProblem>&& problems, Kind kind) {
    for (InputProblem& p : problems) {
      p.kind = kind;
      m_report.problems.push_back(std::move(p));
    }
  }

  void check_signature(const fs::path& pubkey);
  void check_records(const BundleManifest& m);
  void check_pages(const BundleManifest& m);
  void check_against_open(const fs::path& open_dir);
  void check_tasks(const BundleManifest& m);
  void check_site(const BundleManifest& m);
  void check_split(const BundleManifest& m);
  void check_grading(const BundleManifest& m);

 private:
  void read_runs(const fs::path& file, Tier tier);
  void read_case(Json& j, const BundleManifest& m, const std::string& file, std::uint64_t line);

  fs::path m_dir;
  BundleVerifyReport& m_report;
  std::map<std::string, std::uint64_t> m_counts;
  std::map<std::string, std::vector<RunDigestInput>> m_runs;                 // case id → its runs in the bundle
  std::map<std::string, std::pair<std::string, std::uint64_t>> m_run_where;  // case id → first run's file, line
  std::map<std::string, std::vector<std::uint64_t>> m_run_lines;  // case id → the line of each of m_runs[id]
  // Runs whose observation or exit status is not the replayed one, by line
  // of runs.jsonl, with their case: described (field by field) after every
  // record was read, from a second read of those lines, so that the runs
  // need not be held in memory.
  std::map<std::uint64_t, Case> m_unreplayed;
  void describe_unreplayed();
  std::set<std::string> m_case_ids;
  bool m_runs_missing = false;
  // A run record that could not be read: the case digests, which need
  // every run of their case, cannot be checked (each would only repeat it).
  bool m_runs_unreadable = false;
  // Any record that could not be read: the checks across records (the
  // manifest's counts, runs of no case) would only repeat it too.
  bool m_records_unreadable = false;
};

void Verifier::check_signature(const fs::path& pubkey) {
  std::string sig_path = (m_dir / k_signature_file).string();
  auto manifest = read_file(m_dir / k_manifest_file);
  // A missing or unreadable manifest is already a problem of the bundle's
  // (check_bundle_files): only the key is still checked, so that an unusable
  // one is named too.
  if (!manifest) {
    Status key = ed25519_verify(pubkey, "", "");
    if (!key && key.error().kind != Error::Kind::Mismatch) {
      m_report.options_unusable = true;
      add(Kind::Input, "", 0, "", key.error().message);
    }
    return;
  }
  std::string signature;
  if (m_report.signature_present) {
    auto sig = read_file(m_dir / k_signature_file);
    if (!sig) return add(Kind::Input, "", 0, "", sig.error().message);
    signature = std::move(*sig);
  }
  // Verified even when the signature is missing, so an unusable key is named as such.
  Status s = ed25519_verify(pubkey, *manifest, signature);
  if (!s && s.error().kind != Error::Kind::Mismatch) {
    m_report.options_unusable = true;
    return add(Kind::Input, "", 0, "", s.error().message);
  }
  if (!m_report.signature_present)
    return add(Kind::Mismatch, sig_path, 0, "",
               "missing: --pubkey was given but the bundle is not signed (export --sign KEY.pem writes it)");
  if (!s) return add(Kind::Mismatch, sig_path, 0, "", "not a valid signature of manifest.json: " + s.error().message);
  m_report.signature_checked = true;
}

void Verifier::read_runs(const fs::path& file, Tier tier) {
  std::vector<InputProblem> errors;
  const std::string name = file.string();
  read_jsonl(
      file,
      [&](std::uint64_t line, Json&& j) {
        auto kind = j.is_object() ? j.find("record") : j.end();
        if (kind == j.end() || !kind->is_string() || *kind != "run") {
          errors.push_back(input_problem(name, line, "record", "expected \"run\" in " + std::string(k_runs_file)));
          return;
        }
        ++m_counts["run"];
        // The digest is compared here, to report both values.
        auto obs = j.find("observation"), dig = j.find("digest");
        std::string recomputed;
        if (obs != j.end() && obs->is_string() && dig != j.end() && dig->is_string()) {
          recomputed = sha256_hex(obs->get_ref<const std::string&>());
          if (recomputed != dig->get<std::string>())
            add(Kind::Mismatch, name, line, "digest", "is not the SHA-256 of the observation document", recomputed,
                dig->get<std::string>());
        }
        RunRecord r;
        if (!run_from_record(j, name, line, &r, &errors, RunDigestCheck::Skip)) return;
        ++m_report.runs;
        if (!tier_shows(tier, r.strategy))
          add(Kind::Mismatch, name, line, "strategy",
              "a " + std::string(strategy_name(r.strategy)) + " run in an " + std::string(tier_name(tier)) +
                  "-tier bundle");
        auto& runs = m_runs[r.case_id];
        if (std::any_of(runs.begin(), runs.end(), [&](const RunDigestInput& x) { return x.strategy == r.strategy; }))
          add(Kind::Mismatch, name, line, "strategy",
              "a second " + std::string(strategy_name(r.strategy)) + " run of case " + r.case_id);
        runs.push_back(RunDigestInput{r.strategy, r.exit_status, recomputed});
        m_run_lines[r.case_id].push_back(line);
        m_run_where.emplace(r.case_id, std::pair{name, line});
      },
      &errors);
  m_runs_unreadable = !errors.empty();
  m_records_unreadable = m_records_unreadable || m_runs_unreadable;
  add_problems(std::move(errors), Kind::Input);
}

void Verifier::read_case(Json& j, const BundleManifest& m, const std::string& file, std::uint64_t line) {
  const Tier tier = m.tier;
  std::vector<std::string> errors;
  Case c;
  // Without a place, so that the record's file and line are given as such
  // (the reader names the field inside its message: "field 'x': what").
  if (!case_record_to_case_json(j, m.format_version, "", &errors) || !case_from_json(j, "", &c, &errors)) {
    // The record is named as unusable; its runs still belong to it, so they
    // are not also reported as runs of no case of this bundle.
    if (auto id = j.find("id"); id != j.end() && id->is_string()) m_case_ids.insert(id->get<std::string>());
    m_records_unreadable = true;
    for (std::string& e : errors) add(Kind::Input, file, line, "", std::move(e));
    return;
  }
  ++m_report.cases;
  if (!m_case_ids.insert(c.id).second) add(Kind::Mismatch, file, line, "id", "case " + c.id + " appears twice");
  for (const PublishedRun& p : c.published.runs)
    if (!tier_shows(tier, p.strategy))
      add(Kind::Mismatch, file, line, "published",
          "a published digest of the " + std::string(strategy_name(p.strategy)) + " strategy in an open-tier bundle");

  // The case digest over the record and the bundle's runs of the case.
  auto runs_it = m_runs.find(c.id);
  std::vector<RunDigestInput> runs = runs_it == m_runs.end() ? std::vector<RunDigestInput>{} : runs_it->second;
  auto want = case_digest(c, runs);
  auto stored = j.find(k_case_digest_member);
  if (m_runs_missing || m_runs_unreadable) {
    // Named once already: the runs file is missing, or a run record unreadable.
  } else if (!want) {
    add(Kind::Input, file, line, k_case_digest_member, want.error().message);
  } else if (stored == j.end()) {
    add(Kind::Mismatch, file, line, k_case_digest_member, "missing", *want, "nothing");
  } else if (*stored != *want) {
    add(Kind::Mismatch, file, line, k_case_digest_member,
        "case " + c.id + ": differs from the digest of the record and its runs", *want, stored->get<std::string>());
  }

  // Each run replayed through the compiled strategy over the case's
  // fixtures (its digests can be recomputed by anyone after an edit).
  if (runs_it != m_runs.end()) {
    const std::vector<std::uint64_t>& lines = m_run_lines[c.id];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      auto outcome = run_strategy(c, runs[i].strategy);
      if (!outcome) {
        add(Kind::Input, file, line, "", outcome.error().message);
        break;
      }
      if (outcome->exit_status() != runs[i].exit_status ||
          observation_digest(observation_document(c, *outcome)) != runs[i].observation_digest)
        m_unreplayed.emplace(lines[i], c);
    }
  }

  // The repair commitment.
  auto salt = j.find(k_repair_salt_member);
  auto commitment = j.find(k_repair_commitment_member);
  if (tier == Tier::Open) {
    if (salt != j.end())
      add(Kind::Mismatch, file, line, k_repair_salt_member,
          "a repair salt in an open-tier bundle (it must stay in the member tier)");
    if (commitment == j.end()) add(Kind::Mismatch, file, line, k_repair_commitment_member, "missing");
    else m_report.commitments[c.id] = CaseCommitment{commitment->get<std::string>(), file, line};
    return;
  }
  if (salt == j.end()) {
    add(Kind::Mismatch, file, line, k_repair_salt_member,
        "case " + c.id + ": missing, so its repair commitment cannot be checked");
    return;
  }
  // parse_salt_hex refuses exactly this; checked here to give the place apart from the message.
  if (!salt->is_string() || !is_sha256_hex(salt->get_ref<const std::string&>()))
    return add(Kind::Input, file, line, k_repair_salt_member, "expected 64 lower-case hex characters (32 salt bytes)");
  auto salt_bytes = parse_salt_hex(salt->get<std::string>(), file + ":" + std::to_string(line));
  if (!salt_bytes) return add(Kind::Input, file, line, k_repair_salt_member, salt_bytes.error().message);
  // The repaired run the bundle carries, else the compiled strategy's.
  RepairedRun repaired;
  bool carried = false;
  for (const RunDigestInput& r : runs)
    if (r.strategy == StrategyKind::Repaired) {
      repaired = RepairedRun{r.exit_status, r.observation_digest};
      carried = true;
    }
  if (!carried) {
    auto replayed = replay_repaired(c);
    if (!replayed) return add(Kind::Input, file, line, "", replayed.error().message);
    repaired = *replayed;
  }
  auto canonical = canonical_repaired_record(c, repaired);
  if (!canonical) return add(Kind::Input, file, line, "", canonical.error().message);
  std::string recomputed = repair_commitment(*salt_bytes, *canonical);
  ++m_report.commitments_checked;
  m_report.commitments[c.id] = CaseCommitment{recomputed, file, line};
  if (commitment == j.end())
    add(Kind::Mismatch, file, line, k_repair_commitment_member, "missing", recomputed, "nothing");
  else if (*commitment != recomputed)
    add(Kind::Mismatch, file, line, k_repair_commitment_member,
        "case " + c.id + ": the repair does not match its commitment (SHA-256 of salt and canonical repaired record)",
        recomputed, commitment->get<std::string>());
}

void Verifier::describe_unreplayed() {
  if (m_unreplayed.empty()) return;
  const std::string name = (m_dir / k_runs_file).string();
  std::vector<InputProblem> ignored;  // read once already: its problems are reported
  read_jsonl(
      m_dir / k_runs_file,
      [&](std::uint64_t line, Json&& j) {
        auto it = m_unreplayed.find(line);
        if (it == m_unreplayed.end()) return;
        RunRecord r;
        if (!run_from_record(j, name, line, &r, &ignored, RunDigestCheck::Skip)) return;
        if (auto p = replay_run_record(it->second, r, name, line)) m_report.problems.push_back(std::move(*p));
      },
      &ignored);
}

void Verifier::check_records(const BundleManifest& m) {
  // Runs first: a case digest needs the case's runs.
  // A listed file that is missing is already reported; the others are read.
  std::error_code ec;
  // A plain file, not a link (check_bundle_files refuses links: a record
  // read through one would be quoted from outside the folder).
  auto present = [&](const std::string& name) { return fs::is_regular_file(fs::symlink_status(m_dir / name, ec)); };
  bool has_runs = std::binary_search(m.files.begin(), m.files.end(), std::string(k_runs_file));
  if (has_runs && present(k_runs_file)) read_runs(m_dir / k_runs_file, m.tier);
  else m_runs_missing = true;  // case digests and carried repaired runs cannot be checked
  std::vector<InputProblem> errors;
  for (const std::string& name : m.files) {
    if (name == k_runs_file || !present(name)) continue;
    fs::path file = m_dir / name;
    if (file.extension() != ".jsonl") {
      add(Kind::Input, file.string(), 0, "", "a bundle holds only *.jsonl data files");
      continue;
    }
    read_jsonl(
        file,
        [&](std::uint64_t line, Json&& j) {
          auto kind = j.is_object() ? j.find("record") : j.end();
          std::string type = kind != j.end() && kind->is_string() ? kind->get<std::string>() : "";
          if (type == "mechanism") {
            ++m_counts[type];
            ++m_report.mechanisms;
            check_mechanism_record(j, m.tier, file.string(), line, &m_report.problems);
          } else if (type == "case") {
            ++m_counts[type];
            read_case(j, m, file.string(), line);
          } else {
            errors.push_back(input_problem(
                file.string(), line, "record",
                "expected \"mechanism\" or \"case\"" +
                    (type == "run" ? std::string(" (runs belong in ") + k_runs_file + ")" : std::string())));
          }
        },
        &errors);
  }
  m_records_unreadable = m_records_unreadable || !errors.empty();
  add_problems(std::move(errors), Kind::Input);
  describe_unreplayed();
  // Across records: only when every record was read (an unreadable one
  // would be counted as missing, and its runs as runs of no case).
  if (m_records_unreadable) return;
  for (const auto& [id, where] : m_run_where)
    if (!m_case_ids.count(id))
      add(Kind::Mismatch, where.first, where.second, "case", id + " is not a case of this bundle");
  std::string manifest_path = (m_dir / k_manifest_file).string();
  for (const auto& [type, n] : m.counts)
    if (m_counts[type] != n)
      add(Kind::Mismatch, manifest_path, 0, "counts." + type, "disagrees with the records",
          std::to_string(m_counts[type]), std::to_string(n));
  for (const auto& [type, n] : m_counts)
    if (!m.counts.count(type))
      add(Kind::Mismatch, manifest_path, 0, "counts." + type, "missing", std::to_string(n), "nothing");
}

void Verifier::check_pages(const BundleManifest& m) {
  std::uint64_t pages = 0;
  for (const std::string& name : m.files) {
    if (fs::path(name).extension() != ".txt") {
      add(Kind::Input, (m_dir / name).string(), 0, "", "a page export holds only *.txt pages");
      continue;
    }
    if (std::error_code ec; fs::is_symlink(fs::symlink_status(m_dir / name, ec))) continue;  // refused, not read
    ++pages;
    // Each page read as import reads it: its tables and exit statuses
    // recomputed and compared cell by cell, its sources against the
    // references (a page edited and re-hashed is a mismatch here too).
    std::string path = (m_dir / name).string();
    auto text = read_file(m_dir / name);
    if (!text) {
      add(Kind::Input, path, 0, "", text.error().message);
      continue;
    }
    PageReading page;
    std::vector<InputProblem> errors;
    if (!read_page(*text, path, &page, &errors)) {
      add_problems(std::move(errors), Kind::Mismatch);
      continue;
    }
    ++m_report.cases;
    for (const Disagreement& d : page.disagreements) add(Kind::Mismatch, path, d.line, "", describe_cell(d));
    if (page.record.tier != m.tier)
      add(Kind::Mismatch, path, 1, "tier", "the page's access tier is not the bundle's", std::string(tier_name(m.tier)),
          std::string(tier_name(page.record.tier)));
  }
  auto it = m.counts.find("page");
  std::uint64_t said = it == m.counts.end() ? 0 : it->second;
  if (said != pages || m.counts.size() > (it == m.counts.end() ? 0u : 1u))
    add(Kind::Mismatch, (m_dir / k_manifest_file).string(), 0, "counts.page", "disagrees with the pages",
        std::to_string(pages), std::to_string(said));
}

// A count the manifest states against the one found: a Mismatch at
// manifest.json's "counts.TYPE" when they differ (a missing count is 0).
void compare_count(std::vector<InputProblem>& problems, const fs::path& dir, const BundleManifest& m,
                   const std::string& type, std::uint64_t found) {
  auto it = m.counts.find(type);
  std::uint64_t said = it == m.counts.end() ? 0 : it->second;
  if (said != found)
    problems.push_back(InputProblem{
        Kind::Mismatch, (dir / k_manifest_file).string(), 0, "counts." + type,
        "disagrees with the folder's " + (type.ends_with("page") || type == "page" ? std::string("pages") : "records"),
        std::to_string(found), std::to_string(said)});
}

void Verifier::check_tasks(const BundleManifest& m) {
  std::uint64_t tasks = 0;
  std::map<std::string, std::uint64_t> seen;  // task_id -> first line
  std::vector<InputProblem> errors;
  for (const std::string& name : m.files) {
    const fs::path file = m_dir / name;
    if (name != k_tasks_file) {
      add(Kind::Input, file.string(), 0, "", std::string("a task export holds only ") + k_tasks_file);
      continue;
    }
    if (std::error_code ec; !fs::is_regular_file(fs::symlink_status(file, ec))) continue;  // refused, not read
    read_jsonl(
        file,
        [&](std::uint64_t line, Json&& j) {
          auto id = j.is_object() ? j.find("task_id") : j.end();
          if (id == j.end() || !id->is_string())
            return add(Kind::Mismatch, file.string(), line, "task_id",
                       "expected a task record with its case id as a string");
          ++tasks;
          auto [it, fresh] = seen.emplace(id->get<std::string>(), line);
          if (!fresh)
            add(Kind::Mismatch, file.string(), line, "task_id",
                "task " + it->first + " appears twice (first at line " + std::to_string(it->second) + ")");
          if (m.tier == Tier::Open && j.contains("repaired_source"))
            add(Kind::Mismatch, file.string(), line, "repaired_source",
                "the repaired source in an open-tier task export");
        },
        &errors);
  }
  add_problems(std::move(errors), Kind::Input);
  m_report.records["task"] = tasks;
  compare_count(m_report.problems, m_dir, m, "task", tasks);
}

void Verifier::check_site(const BundleManifest& m) {
  std::map<std::string, std::uint64_t> found{{"case page", 0}, {"mechanism page", 0}, {"page", 0}, {"stylesheet", 0}};
  const std::string repair_heading = "<h2>" + std::string(page_section_title(StrategyKind::Repaired)) + "</h2>";
  for (const std::string& name : m.files) {
    const fs::path file = m_dir / name;
    const bool html = file.extension() == ".html";
    if (!html && name != "style.css") {
      add(Kind::Input, file.string(), 0, "", "a site holds only *.html pages and style.css");
      continue;
    }
    ++found[!html                            ? "stylesheet"
            : name.starts_with("case-")      ? "case page"
            : name.starts_with("mechanism-") ? "mechanism page"
                                             : "page"];
    if (!html || m.tier != Tier::Open) continue;
    if (std::error_code ec; !fs::is_regular_file(fs::symlink_status(file, ec))) continue;  // refused, not read
    auto text = read_file(file);
    if (!text) {
      add(Kind::Input, file.string(), 0, "", text.error().message);
      continue;
    }
    if (text->find(repair_heading) != std::string::npos)
      add(Kind::Mismatch, file.string(), 0, "", "a repair section in an open-tier site");
  }
  m_report.records["page"] = found["case page"] + found["mechanism page"] + found["page"];
  for (const auto& [type, n] : found) compare_count(m_report.problems, m_dir, m, type, n);
}

void Verifier::check_split(const BundleManifest& m) {
  std::map<std::string, std::uint64_t> items;                        // file stem -> its item lines
  std::map<std::string, std::pair<std::string, std::string>> where;  // id -> (split, FILE:LINE) of its first split file
  std::uint64_t assignments = 0;
  std::vector<InputProblem> errors;
  std::set<std::string> split_names;
  for (const auto& [name, n] : m.split_items) split_names.insert(name);
  for (const std::string& name : m.files) {
    const fs::path file = m_dir / name;
    if (file.extension() != ".jsonl") {
      add(Kind::Input, file.string(), 0, "", "a split folder holds only *.jsonl files");
      continue;
    }
    if (std::error_code ec; !fs::is_regular_file(fs::symlink_status(file, ec))) continue;  // refused, not read
    const std::string stem = file.stem().string();
    const bool listing = name == "assignments.jsonl";
    if (!listing && !split_names.count(stem)) {
      add(Kind::Mismatch, file.string(), 0, "", "the file of no split manifest.json names");
      continue;
    }
    read_jsonl(
        file,
        [&](std::uint64_t line, Json&& j) {
          if (!j.is_object()) return add(Kind::Mismatch, file.string(), line, "", "expected a JSON object");
          if (j.contains("record") && j["record"] == "run") return;
          const char* key = j.contains("id") ? "id" : j.contains("task_id") ? "task_id" : nullptr;
          if (!key) return add(Kind::Mismatch, file.string(), line, "id", "missing");
          if (listing) return void(++assignments);
          ++items[stem];
          const std::string id = dump_compact(j[key]);
          const std::string at = name + ":" + std::to_string(line);
          auto [it, fresh] = where.emplace(id, std::pair{stem, at});
          if (!fresh)
            add(Kind::Mismatch, file.string(), line, key,
                "item " + id +
                    (it->second.first == stem ? " appears twice in split " + stem
                                              : " is in split " + it->second.first + " too") +
                    " (" + it->second.second + ")");
        },
        &errors);
  }
  add_problems(std::move(errors), Kind::Input);
  std::uint64_t total = 0;
  const std::string manifest_path = (m_dir / k_manifest_file).string();
  for (std::size_t s = 0; s < m.split_items.size(); ++s) {
    const auto& [name, said] = m.split_items[s];
    total += said;
    if (items[name] != said)
      add(Kind::Mismatch, manifest_path, 0, "splits[" + std::to_string(s) + "].items",
          "disagrees with " + name + ".jsonl", std::to_string(items[name]), std::to_string(said));
  }
  if (std::binary_search(m.files.begin(), m.files.end(), std::string("assignments.jsonl")) && assignments != total)
    add(Kind::Mismatch, (m_dir / "assignments.jsonl").string(), 0, "", "one line per item of the splits",
        std::to_string(total), std::to_string(assignments));
  std::uint64_t read = 0;
  for (const auto& [stem, n] : items) read += n;
  m_report.records["item"] = read;
}

void Verifier::check_grading(const BundleManifest& m) {
  struct Tally {
    std::uint64_t predictions = 0, resolved = 0, partial = 0, unresolved = 0, errors = 0;
  };
  std::map<std::string, Tally> models;
  std::uint64_t results = 0;
  std::map<std::uint64_t, std::uint64_t> lines;  // prediction line -> results line
  std::vector<InputProblem> errors;
  const fs::path results_file = m_dir / "results.jsonl", summary_file = m_dir / "summary.json";
  for (const std::string& name : {std::string("results.jsonl"), std::string("summary.json")})
    if (!std::binary_search(m.files.begin(), m.files.end(), name))
      add(Kind::Mismatch, (m_dir / k_manifest_file).string(), 0, "files",
          "a grading holds " + name + "; this one does not");
  for (const std::string& name : m.files)
    if (name != "results.jsonl" && name != "summary.json")
      add(Kind::Input, (m_dir / name).string(), 0, "", "a grading holds only results.jsonl and summary.json");
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(results_file, ec)))
    read_jsonl(
        results_file,
        [&](std::uint64_t line, Json&& j) {
          ++results;
          auto model = j.is_object() ? j.find("model") : j.end();
          auto verdict = j.is_object() ? j.find("verdict") : j.end();
          auto at = j.is_object() ? j.find("line") : j.end();
          if (model == j.end() || !model->is_string() || verdict == j.end() || !verdict->is_string() || at == j.end() ||
              !at->is_number_unsigned())
            return add(Kind::Mismatch, results_file.string(), line, "",
                       "expected a results line (line, model, verdict, ...)");
          auto [it, fresh] = lines.emplace(at->get<std::uint64_t>(), line);
          if (!fresh)
            add(Kind::Mismatch, results_file.string(), line, "line",
                "prediction line " + std::to_string(it->first) + " is graded twice (also at line " +
                    std::to_string(it->second) + ")");
          Tally& t = models[model->get<std::string>()];
          ++t.predictions;
          const std::string& v = verdict->get_ref<const std::string&>();
          if (v == "resolved") ++t.resolved;
          else if (v == "partial") ++t.partial;
          else if (v == "unresolved") ++t.unresolved;
          else if (v == "error") ++t.errors;
          else
            add(Kind::Mismatch, results_file.string(), line, "verdict",
                "expected resolved, partial, unresolved or error");
        },
        &errors, k_max_result_line_bytes);
  add_problems(std::move(errors), Kind::Input);
  m_report.records["result"] = results;
  compare_count(m_report.problems, m_dir, m, "result", results);
  if (!fs::is_regular_file(fs::symlink_status(summary_file, ec))) return;
  auto text = read_file(summary_file);
  if (!text) return add(Kind::Input, summary_file.string(), 0, "", text.error().message);
  JsonParseError syntax;
  auto j = parse_json_file(*text, summary_file.string(), &syntax);
  if (!j) return add(Kind::Input, summary_file.string(), syntax.line, "", syntax.what);
  if (!j->is_object() || j->value("format", "") != "failmap-grade-summary")
    return add(Kind::Mismatch, summary_file.string(), 0, "format", "not a summary of failmap grade");
  const std::string where = summary_file.string();
  if (j->value("predictions", Json()) != Json(results))
    add(Kind::Mismatch, where, 0, "predictions", "disagrees with results.jsonl", std::to_string(results),
        dump_compact(j->value("predictions", Json())));
  const Json summary_models = j->value("models", Json::object());
  for (const auto& [name, t] : models) {
    const Json s = summary_models.is_object() && summary_models.contains(name) ? summary_models[name] : Json();
    if (!s.is_object()) {
      add(Kind::Mismatch, where, 0, "models", "no entry for model " + dump_compact(Json(name)) + " of results.jsonl");
      continue;
    }
    for (const auto& [key, n] :
         std::initializer_list<std::pair<const char*, std::uint64_t>>{{"predictions", t.predictions},
                                                                      {"resolved", t.resolved},
                                                                      {"partial", t.partial},
                                                                      {"unresolved", t.unresolved},
                                                                      {"errors", t.errors}})
      if (s.value(key, Json()) != Json(n))
        add(Kind::Mismatch, where, 0, "models." + name + "." + key, "disagrees with the verdicts of results.jsonl",
            std::to_string(n), dump_compact(s.value(key, Json())));
  }
  if (summary_models.is_object())
    for (const auto& [name, s] : summary_models.items())
      if (!models.count(name)) add(Kind::Mismatch, where, 0, "models." + name, "a model with no line in results.jsonl");
}

void Verifier::check_against_open(const fs::path& open_dir) {
  BundleVerifyReport open = verify_bundle(open_dir, {});
  for (InputProblem& p : open.problems) m_report.problems.push_back(std::move(p));
  if (open.unusable()) m_report.options_unusable = true;
  if (!open.manifest) return;
  const bool bundles =
      open.manifest->format == "failmap-bundle" && m_report.manifest && m_report.manifest->format == "failmap-bundle";
  if (!bundles || open.manifest->tier != Tier::Open || !m_report.manifest || m_report.manifest->tier != Tier::Member)
    m_report.options_unusable = true;
  if (!bundles)
    return add(Kind::Input, "", 0, "",
               "--open compares two JSON Lines bundles (export --format jsonl): " + open_dir.string() + " is a " +
                   std::string(find_folder_kind(open.manifest->format)->noun) + ", " + m_dir.string() + " a " +
                   (m_report.manifest ? std::string(find_folder_kind(m_report.manifest->format)->noun) : "folder"));
  if (open.manifest->tier != Tier::Open)
    return add(Kind::Input, (open_dir / k_manifest_file).string(), 0, k_export_tier_member,
               "--open needs an open-tier bundle", "open", std::string(tier_name(open.manifest->tier)));
  if (!m_report.manifest || m_report.manifest->tier != Tier::Member)
    return add(Kind::Input, (m_dir / k_manifest_file).string(), 0, k_export_tier_member,
               "--open checks the repairs of a member-tier bundle against an open one", "member",
               m_report.manifest ? std::string(tier_name(m_report.manifest->tier)) : "unknown");
  const auto& published = open.commitments;
  for (const auto& [id, mine] : m_report.commitments) {
    auto it = published.find(id);
    if (it == published.end()) {
      add(Kind::Mismatch, mine.file, mine.line, k_repair_commitment_member,
          "case " + id + ": the open bundle " + open_dir.string() + " publishes no commitment for it");
    } else if (it->second.value != mine.value) {
      add(Kind::Mismatch, it->second.file, it->second.line, k_repair_commitment_member,
          "case " + id + ": the member bundle's repair does not match the commitment the open tier published",
          it->second.value, mine.value);
    } else {
      ++m_report.commitments_matched_open;
    }
  }
}

}  // namespace

BundleVerifyReport verify_bundle(const fs::path& dir, const BundleVerifyOptions& options) {
  BundleVerifyReport report;
  Verifier v(dir, report);
  std::error_code ec;
  // A plain file only: a link or FIFO is refused by check_bundle_files and
  // never read (a link could point at another bundle's valid signature).
  report.signature_present = fs::is_regular_file(fs::symlink_status(dir / k_signature_file, ec));
  report.manifest = check_bundle_files(dir, &report.problems, true, /*any_kind=*/true);
  if (report.manifest) {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (!it->is_symlink() && it->is_regular_file() && it->path().filename() != k_sums_file &&
          !unlisted_note(report.manifest->format, it->path().filename().string()))
        ++report.files;
  }
  if (options.pubkey) v.check_signature(*options.pubkey);
  if (!report.manifest) return report;
  // A manifest with a damaged member (no counts, no file list): reading the
  // records against it would only repeat that problem.
  const std::string manifest_path = (dir / k_manifest_file).string();
  if (std::any_of(report.problems.begin(), report.problems.end(),
                  [&](const InputProblem& p) { return p.kind == Kind::Input && p.file == manifest_path; }))
    return report;
  report.records_checked = true;
  const std::string& format = report.manifest->format;
  if (format == "failmap-pages") v.check_pages(*report.manifest);
  else if (format == "failmap-tasks") v.check_tasks(*report.manifest);
  else if (format == "failmap-site") v.check_site(*report.manifest);
  else if (format == "failmap-split") v.check_split(*report.manifest);
  else if (format == "failmap-grading") v.check_grading(*report.manifest);
  else v.check_records(*report.manifest);
  if (options.open_dir) v.check_against_open(*options.open_dir);
  return report;
}

}  // namespace failmap
