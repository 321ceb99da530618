// The grading workflow: grade_predictions, merge_gradings and the pool of
// warm sandbox workers they and a service grade on (grade/grading.h).
#include "grade/grading.h"

#include "encoding/control_chars.h"
#include "grade/completion.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "core/parallel.h"
#include "encoding/embedded.h"
#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/sha256.h"
#include "grade/identity.h"
#include "io/hashed_folder.h"
#include "io/split_folder.h"

namespace failmap {

Result<std::pair<std::uint64_t, std::uint64_t>> parse_shard(const std::string& text) {
  // Digits only on both sides (std::stoull took " 1/3" and "+1/3").
  auto bad = [&] {
    return input_error("--shard: expected I/N with 1 <= I <= N <= 4096 (e.g. 2/4), got '" + text + "'");
  };
  auto slash = text.find('/');
  if (slash == std::string::npos) return bad();
  auto number = [](std::string_view t, std::uint64_t& v) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  std::uint64_t i = 0, n = 0;
  const std::string_view all(text);
  if (!number(all.substr(0, slash), i) || !number(all.substr(slash + 1), n) || i < 1 || n < 1 || i > n || n > 4096)
    return bad();
  return std::pair{i, n};
}

std::uint64_t shard_of(const std::string& case_id, const std::string& source_sha256, std::uint64_t n) {
  std::string key = case_id;
  key.push_back('\0');
  key += source_sha256;
  return std::stoull(sha256_hex(key).substr(0, 16), nullptr, 16) % n;
}

void append_index_entry(std::string& index, std::uint64_t line, const std::string& case_id, const std::string& model,
                        std::int64_t sample, const std::string& source_sha256) {
  index += std::to_string(line);
  index += '\t';
  index += case_id;
  index += '\t';
  index += model;
  index += '\t';
  index += std::to_string(sample);
  index += '\t';
  index += source_sha256;
  index += '\n';
}

Result<std::string> grading_settings(std::size_t held_out, const SandboxLimits& limits, SandboxMode mode) {
  FAILMAP_TRY_ASSIGN(const std::string python, interpreter_identity());
  FAILMAP_TRY_ASSIGN(const std::string build, build_identity());
  Json s = Json::object();
  s["failmap"] = FAILMAP_VERSION;
  s["build"] = build;
  s["python"] = python;
  s["driver_sha256"] = sha256_hex(embedded_file("driver.py"));
  s["held_out"] = held_out;
  s["wall_seconds"] = limits.wall_seconds;
  s["cpu_seconds"] = limits.cpu_seconds;
  s["memory_bytes"] = limits.memory_bytes;
  s["sandbox"] = std::string(sandbox_mode_name(mode));
  return dump_compact(s);
}

std::optional<double> calibration_factor(std::string_view text) {
  if (text == "calibrated") return k_default_calibration_factor;
  if (!text.starts_with("calibrated:")) return std::nullopt;
  std::string_view f = text.substr(std::string_view("calibrated:").size());
  double v = 0;
  auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v, std::chars_format::general);
  if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !(v > 0 && v <= k_max_calibration_factor))
    return std::nullopt;
  return v;
}

std::string summary_table(const Json& s) {
  // HELD-OUT with --held-out, COVERAGE with --split; pass@1 with its 95% interval.
  const bool held = s.value("held_out", Json(0)) != Json(0);
  const bool split = !s.value("split_cases", Json()).is_null();
  auto fixed3 = [](const Json& v) {
    if (!v.is_number()) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v.get<double>());
    return std::string(buf);
  };
  std::string out = "MODEL                     PREDICTIONS  RESOLVED  PARTIAL  UNRESOLVED  ERRORS";
  if (held) out += "  HELD-OUT";
  if (split) out += "  COVERAGE";
  out += "  PASS@1  95% INTERVAL\n";
  for (const auto& [name, m] : s["models"].items()) {
    char row[256];
    std::snprintf(row, sizeof row, "%-24s %12s %9s %8s %11s %7s", escape_control_characters(name, false).c_str(),
                  m["predictions"].dump().c_str(), m["resolved"].dump().c_str(), m["partial"].dump().c_str(),
                  m["unresolved"].dump().c_str(), m["errors"].dump().c_str());
    out += row;
    if (held) {
      std::snprintf(row, sizeof row, "  %8s", m["held_out_resolved"].dump().c_str());
      out += row;
    }
    if (split) {
      std::string cov = m["cases"].dump() + "/" + m["split_cases"].dump();
      std::snprintf(row, sizeof row, "  %8s", cov.c_str());
      out += row;
    }
    const Json p1 = m["pass_at_k"].contains("1") ? m["pass_at_k"]["1"] : Json();
    const Json iv = m["pass_at_k_interval"].is_object() && m["pass_at_k_interval"].contains("1")
                        ? m["pass_at_k_interval"]["1"]
                        : Json();
    std::string interval = iv.is_array() ? "[" + fixed3(iv[0]) + ", " + fixed3(iv[1]) + "]" : "-";
    std::snprintf(row, sizeof row, "  %6s  %s", fixed3(p1).c_str(), interval.c_str());
    out += row;
    out += "\n";
  }
  return out;
}

std::string calibrated_rule(double factor) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, factor);
  return "calibrated:" + std::string(buf, ec == std::errc() ? end : buf);
}

// ---------------------------------------------------------------------------
// CandidatePool

struct CandidatePool::State {
  SandboxMode mode;
  SandboxLimits limits;
  std::size_t queue_limit;
  mutable std::mutex mu;
  std::condition_variable changed;
  std::deque<CandidateJob> queue;
  bool stopping = false;
  std::vector<std::thread> threads;

  void work() {
    SandboxWorker sandbox(mode, limits);
    // Started before the first job comes (a failure here is met again, and
    // reported, by that job's run).
    (void)sandbox.warm();
    for (;;) {
      CandidateJob job;
      {
        std::unique_lock lock(mu);
        changed.wait(lock, [&] { return !queue.empty() || stopping; });
        if (stopping) return;
        job = std::move(queue.front());
        queue.pop_front();
        changed.notify_all();
      }
      auto run = run_candidate(sandbox, *job.gc, job.prediction.source, sha256_hex(job.prediction.source));
      job.done(judge(*job.gc, std::move(run), limits));  // under the case's budget (case_limits)
    }
  }
};

CandidatePool::CandidatePool(unsigned jobs, SandboxMode mode, const SandboxLimits& limits, std::size_t queue_limit)
    : m_state(std::make_unique<State>()) {
  m_state->mode = mode;
  m_state->limits = limits;
  m_state->queue_limit = queue_limit ? queue_limit : 8 * std::size_t{std::max(jobs, 1u)};
  for (unsigned i = 0; i < std::max(jobs, 1u); ++i) m_state->threads.emplace_back([s = m_state.get()] { s->work(); });
}

CandidatePool::~CandidatePool() {
  {
    std::lock_guard lock(m_state->mu);
    m_state->stopping = true;
    m_state->queue.clear();
    m_state->changed.notify_all();
  }
  for (auto& t : m_state->threads) t.join();
}

bool CandidatePool::submit(CandidateJob job) {
  std::unique_lock lock(m_state->mu);
  m_state->changed.wait(lock, [&] { return m_state->queue.size() < m_state->queue_limit || m_state->stopping; });
  if (m_state->stopping) return false;
  m_state->queue.push_back(std::move(job));
  m_state->changed.notify_all();
  return true;
}

bool CandidatePool::try_submit(CandidateJob& job) {
  std::lock_guard lock(m_state->mu);
  if (m_state->stopping || m_state->queue.size() >= m_state->queue_limit) return false;
  m_state->queue.push_back(std::move(job));
  m_state->changed.notify_all();
  return true;
}

bool CandidatePool::try_submit_for(CandidateJob& job, std::chrono::milliseconds wait) {
  std::unique_lock lock(m_state->mu);
  if (!m_state->changed.wait_for(lock, wait,
                                 [&] { return m_state->queue.size() < m_state->queue_limit || m_state->stopping; }) ||
      m_state->stopping)
    return false;
  m_state->queue.push_back(std::move(job));
  m_state->changed.notify_all();
  return true;
}

std::size_t CandidatePool::drop_queued() {
  std::lock_guard lock(m_state->mu);
  const std::size_t n = m_state->queue.size();
  m_state->queue.clear();
  m_state->changed.notify_all();
  return n;
}

std::size_t CandidatePool::queued() const {
  std::lock_guard lock(m_state->mu);
  return m_state->queue.size();
}

const SandboxLimits& CandidatePool::limits() const { return m_state->limits; }
SandboxMode CandidatePool::mode() const { return m_state->mode; }

// ---------------------------------------------------------------------------
// grade_predictions

namespace {

bool interrupted(const GradeHooks& hooks) { return hooks.interrupted && hooks.interrupted(); }

Error interrupted_error() { return input_error("interrupted"); }

// The cases summary.json counts: every case graded and, with a split, every
// case of it, those without a prediction looked up (and kept in
// `split_only`). A split case `lookup` lacks is an input error worded by
// `missing(id)`.
template <class Missing>
Status gather_summary_cases(const std::map<std::string, GradingCase>& cases,
                            const std::optional<std::vector<std::string>>& split_ids, CaseLookup& lookup,
                            std::map<std::string, Case>& split_only, SummaryCases& out, Missing missing) {
  out.split_cases = split_ids;
  for (const auto& [id, g] : cases) out.cases.emplace(id, &g.c);
  if (!split_ids) return ok_status();
  for (const std::string& id : *split_ids) {
    if (cases.count(id)) continue;
    FAILMAP_TRY_ASSIGN(auto c, lookup.find_case(id));
    if (!c) return input_error(missing(id));
    out.cases.emplace(id, &split_only.emplace(id, std::move(c->first)).first->second);
  }
  return ok_status();
}

// One line of cpu.jsonl (schema/GRADING.md "cpu.jsonl"): the predictions line,
// the CPU seconds to the millisecond and their share of the budget, null
// for a line recalled from the record or a sandbox failure.
std::string cpu_line(std::uint64_t line, const std::optional<double>& seconds, double budget) {
  Json j = Json::object();
  j["line"] = line;
  j["cpu_seconds"] = seconds ? Json(std::round(*seconds * 1000.0) / 1000.0) : Json(nullptr);
  j["share"] = seconds ? Json(cpu_share(*seconds, budget)) : Json(nullptr);
  return dump_compact(j) + "\n";
}

// Each case a prediction names, prepared for grading once.
Status prepare_cases(const std::map<std::string, std::uint64_t>& first_line, const std::string& file,
                     std::size_t held_out, CaseLookup& lookup, std::map<std::string, GradingCase>& cases,
                     std::vector<InputProblem>& problems) {
  for (const auto& [id, line] : first_line) {
    FAILMAP_TRY_ASSIGN(auto c, lookup.find_case(id));
    if (!c) {
      problems.push_back(input_problem(file, line, "case",
                                       "no case " + id + " in " + lookup.name() + " (`failmap list` shows its cases)"));
      continue;
    }
    FAILMAP_TRY_ASSIGN(GradingCase g, prepare_grading_case(c->first, c->second, held_out));
    cases.emplace(id, std::move(g));
  }
  return ok_status();
}

// --timeout calibrated:F: measures the sources of each case of `ids` on
// o.jobs workers (reference_cpu_seconds) and sets its cpu_budget.
Status calibrate_cases(const GradeOptions& o, const std::set<std::string>& ids,
                       std::map<std::string, GradingCase>& cases, const GradeHooks& hooks) {
  std::vector<GradingCase*> todo;
  for (const std::string& id : ids) todo.push_back(&cases.at(id));
  ParallelOptions parallel;
  parallel.jobs = o.jobs;
  parallel.poll = [&]() -> Status { return interrupted(hooks) ? Status(interrupted_error()) : ok_status(); };
  // The first Error in the order of `ids` (a case's sources that do not run).
  Status measured = parallel_ordered(
      todo.size(), parallel, [&] { return std::make_unique<SandboxWorker>(o.mode, o.limits); },
      [&](std::size_t i, std::unique_ptr<SandboxWorker>& worker) { return reference_cpu_seconds(*worker, *todo[i]); },
      [&](std::size_t i, Result<double>&& seconds) -> Status {
        FAILMAP_TRY(seconds);
        todo[i]->cpu_budget = calibrated_budget(*seconds, *o.calibrated);
        return ok_status();
      });
  if (interrupted(hooks)) return interrupted_error();
  return measured;
}

}  // namespace

Result<GradeOutcome> grade_predictions(const GradeOptions& o, CaseLookup& lookup, GradingCache* cache,
                                       const GradeHooks& hooks) {
  GradeOutcome outcome;
  // --split: only the cases of one split of a split folder, whose files
  // must match its SHA256SUMS.
  std::optional<std::map<std::string, std::string>> split_of;  // case id → its split in the folder
  std::optional<std::vector<std::string>> split_ids;           // the cases of split NAME, in byte order
  if (o.split_dir.empty() != o.split_name.empty()) return input_error("--split DIR and --split-name NAME go together");
  if (!o.split_dir.empty()) {
    FAILMAP_TRY(verify_sums(o.split_dir, "failmap-split"));
    FAILMAP_TRY_ASSIGN(const std::vector<FolderClaim> claims, read_split_folder(o.split_dir, false));
    split_of.emplace();
    std::set<std::string> names;
    for (const FolderClaim& c : claims) {
      split_of->emplace(c.claim.id, c.claim.split);
      names.insert(c.claim.split);
    }
    split_ids.emplace();
    for (const FolderClaim& c : claims)
      if (c.claim.split == o.split_name) split_ids->push_back(c.claim.id);
    std::sort(split_ids->begin(), split_ids->end());
    split_ids->erase(std::unique(split_ids->begin(), split_ids->end()), split_ids->end());
    if (!names.count(o.split_name)) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      return input_error("--split-name: " + o.split_dir + " has no split '" + o.split_name + "' (it has: " + known +
                         ")");
    }
  }

  // Pass 1: every line checked, every case looked up, before anything runs.
  std::vector<InputProblem>& problems = outcome.problems;
  FAILMAP_TRY(
      check_regular_file(o.predictions, "grade reads the predictions twice: a check of every line, then grading"));
  // The file is read twice (checked, then graded), each time digested as it
  // is read: the digests agree when the bytes graded are the bytes checked.
  Sha256 first_pass;
  std::map<std::string, std::uint64_t> first_line;  // case id → first line naming it
  std::set<std::string> graded_cases;               // the cases this run (this shard) grades candidates of
  std::string index;                                // the predictions index, whose SHA-256 summary.json gives
  std::size_t count = 0;
  read_predictions(
      o.predictions,
      [&](Prediction&& p) {
        ++count;
        if (split_of) {
          auto it = split_of->find(p.case_id);
          if (it == split_of->end() || it->second != o.split_name) {
            problems.push_back(input_problem(o.predictions, p.line, "case",
                                             "case " + p.case_id + " is not in split '" + o.split_name + "' of " +
                                                 o.split_dir +
                                                 (it == split_of->end() ? " (nor in any other of its splits)"
                                                                        : " (it is in '" + it->second + "')")));
            return;
          }
        }
        first_line.emplace(p.case_id, p.line);
        const std::string sha = sha256_hex(p.source);
        if (!o.shard || shard_of(p.case_id, sha, o.shard->second) == o.shard->first - 1) graded_cases.insert(p.case_id);
        append_index_entry(index, p.line, p.case_id, p.model, p.sample, sha);
      },
      &problems, true, &first_pass);
  const std::string input_sha256 = first_pass.hex();
  if (problems.empty() && count == 0)
    return input_error(o.predictions +
                       ": holds no prediction (expected one JSON object per line: "
                       "{\"case\", \"model\", \"sample\", \"source\"}, schema/GRADING.md)");
  std::map<std::string, GradingCase> cases;
  FAILMAP_TRY(prepare_cases(first_line, o.predictions, o.held_out, lookup, cases, problems));
  if (!problems.empty()) {
    // In line order: a case the archive lacks was found after reading every line.
    std::stable_sort(problems.begin(), problems.end(),
                     [](const InputProblem& a, const InputProblem& b) { return a.line < b.line; });
    return outcome;
  }
  // The summary's cases: those graded and, with --split, every case of the
  // split (a case without a prediction counts as failed there).
  std::map<std::string, Case> split_only;
  SummaryCases summary_cases;
  FAILMAP_TRY(gather_summary_cases(cases, split_ids, lookup, split_only, summary_cases, [&](const std::string& id) {
    return "--split: case " + id + " of split '" + o.split_name + "' is not in " + lookup.name() +
           " (split the archive that is graded)";
  }));
  if (o.mode == SandboxMode::Bubblewrap)
    if (auto why = sandbox_unavailable()) return input_error("cannot sandbox candidates: " + *why);

  // --timeout calibrated:F: each case's budget, from its own sources' CPU
  // time, before any of its candidates runs.
  Json cpu_budgets = Json::object();
  if (o.calibrated) {
    FAILMAP_TRY(calibrate_cases(o, graded_cases, cases, hooks));
    for (const std::string& id : graded_cases) cpu_budgets[id] = *cases.at(id).cpu_budget;
  }

  FAILMAP_TRY_ASSIGN(auto writer, HashedFolderWriter::create(o.out, "grading"));
  FAILMAP_TRY_ASSIGN(const std::size_t results_file, writer.open("results.jsonl"));
  FAILMAP_TRY_ASSIGN(const std::size_t cpu_file, writer.open("cpu.jsonl", false));

  // Pass 2: read again, grade on `jobs` threads (core/parallel.h) each with
  // its own warm sandbox worker, write in input order on this one.
  // A graded prediction waiting for its turn to be written.
  struct Done {
    std::string line;         // its results line
    SummaryEntry entry;       // what the summary counts of it
    std::string judged;       // judged members to record ("" when they came from the record)
    std::string case_digest;  // the record's key
    std::string source_sha256;
    std::uint64_t input_line = 0;       // its line in the predictions file
    std::optional<double> cpu_seconds;  // none when recalled or the sandbox failed
    double budget = 0.0;                // the CPU budget of its case
  };
  // A prediction to grade, or one recalled from the record.
  struct Pending {
    Prediction p;
    std::string sha;
    const GradingCase* gc = nullptr;
    std::optional<Done> recalled;
  };
  // The record's key besides case and source, per case graded: with
  // calibrated budgets, each case's own.
  std::map<std::string, std::string> settings_of;
  for (const std::string& id : graded_cases) {
    FAILMAP_TRY_ASSIGN(std::string settings_text,
                       grading_settings(o.held_out, case_limits(cases.at(id), o.limits), o.mode));
    settings_of.emplace(id, std::move(settings_text));
  }
  // What record.json says: the lines recalled from the record, the records
  // refused (judged otherwise now: graded anew, the record replaced), and
  // how many gradings were recorded.
  std::vector<std::uint64_t> recalled_lines;
  std::vector<std::string> refused_records;
  std::uint64_t recorded = 0;
  std::size_t produced = 0;
  std::map<std::string, ModelSummary> summary;
  Status write_status = ok_status();
  if (hooks.start) hooks.start(count);

  ParallelOptions parallel;
  parallel.jobs = o.jobs;
  parallel.ahead = 8 * std::size_t{std::max(o.jobs, 1u)};
  parallel.caller = CallerRole::ConsumesOnly;  // writes, records and polls the interrupt while candidates run
  parallel.poll = [&]() -> Status { return interrupted(hooks) ? Status(interrupted_error()) : ok_status(); };
  using Sandbox = std::unique_ptr<SandboxWorker>;
  OrderedPipeline<Pending, Done, Sandbox> pipeline(
      parallel,
      [&] {
        auto sandbox = std::make_unique<SandboxWorker>(o.mode, o.limits);
        // Started before the first candidate comes (a failure here is met
        // again, and reported, by that candidate's run).
        (void)sandbox->warm();
        return sandbox;
      },
      [&](Pending& q, Sandbox& sandbox) {
        if (q.recalled) return std::move(*q.recalled);
        const GradingCase& gc = *q.gc;
        GradeResult r = judge(gc, run_candidate(*sandbox, gc, q.p.source, q.sha), o.limits);  // under case_limits
        // A timeout, a memory or sandbox error may go otherwise on another
        // machine or a quieter one: such results are not recorded. Without
        // a record nothing is kept for it (a line may be tens of MB).
        const bool record = cache && !machine_dependent(r);
        SummaryEntry entry = summary_entry(q.p, gc.c.mechanism, r);
        // The observation document moves from the result to the judged
        // members to the line: one report's values are held at most twice
        // at once (three times when recorded).
        Json judged = judged_members(std::move(r), o.mode);
        std::string recorded_judged = record ? dump_compact(judged) : std::string();
        return Done{result_line(q.p, gc.c.mechanism, q.sha, gc.case_digest, std::move(judged)),
                    std::move(entry),
                    std::move(recorded_judged),
                    gc.case_digest,
                    q.sha,
                    q.p.line,
                    r.cpu_seconds,
                    case_limits(gc, o.limits).cpu_seconds};
      },
      [&](Pending&, Done&& d) -> Status {
        d.line.push_back('\n');
        if (write_status) write_status = writer.append(results_file, d.line);
        if (write_status) write_status = writer.append(cpu_file, cpu_line(d.input_line, d.cpu_seconds, d.budget));
        if (write_status && cache && !d.judged.empty() && !d.case_digest.empty()) {
          write_status = cache->record(d.case_digest, d.source_sha256, settings_of.at(d.entry.case_id), d.judged);
          ++recorded;
        }
        add_to_summary(summary, d.entry);
        if (hooks.advance) hooks.advance();
        return ok_status();
      });
  std::vector<InputProblem> again;
  Sha256 second_pass;
  bool stopped = false;
  read_predictions(
      o.predictions,
      [&](Prediction&& p) {
        if (stopped) return;
        resolve_completion(p);
        Pending q;
        q.sha = sha256_hex(p.source);
        if (o.shard && shard_of(p.case_id, q.sha, o.shard->second) != o.shard->first - 1) return;
        const GradingCase& gc = cases.at(p.case_id);
        q.gc = &gc;
        if (cache && !o.regrade && !gc.case_digest.empty()) {
          auto hit = cache->find(gc.case_digest, q.sha, settings_of.at(p.case_id));
          if (!hit) {
            if (write_status) write_status = hit.error();
          } else if (*hit) {
            // Judged again by the code that judges a fresh grading: a record
            // edited behind failmap's back is graded anew, never printed.
            auto r =
                judge_recorded(gc, **hit, o.mode,
                               o.predictions + ":" + std::to_string(p.line) + ": the archive's record of this grading");
            if (r) {
              recalled_lines.push_back(p.line);
              q.recalled = Done{result_line(p, gc.c.mechanism, q.sha, gc.case_digest, judged_members(*r, o.mode)),
                                summary_entry(p, gc.c.mechanism, *r),
                                "",
                                "",
                                "",
                                p.line,
                                std::nullopt,
                                case_limits(gc, o.limits).cpu_seconds};
            } else {
              refused_records.push_back(r.error().message);
            }
          }
        }
        q.p = std::move(p);
        if (!pipeline.submit(std::move(q))) stopped = true;
        else ++produced;
      },
      &again, false, &second_pass);  // pass 1 refused repeated keys; the file's digest below shows it unchanged since
  (void)pipeline.finish();           // only an interrupt stops it: checked below
  if (interrupted(hooks)) return interrupted_error();
  if (!again.empty()) return input_error(o.predictions + " changed while it was graded: " + describe(again.front()));
  if (second_pass.hex() != input_sha256)
    return input_error(o.predictions + " changed while it was graded (its SHA-256 is no longer " + input_sha256 + ")");
  FAILMAP_TRY(write_status);
  if (cache) FAILMAP_TRY(cache->finish());
  FAILMAP_TRY(writer.close_files());

  Json info = Json::object();
  info["predictions"] = produced;
  info["predictions_total"] = count;
  info["predictions_sha256"] = input_sha256;
  info["predictions_index_sha256"] = sha256_hex(index);
  info["held_out"] = o.held_out;
  info["sandbox"] = std::string(sandbox_mode_name(o.mode));
  info["shard"] =
      o.shard ? Json(std::to_string(o.shard->first) + "/" + std::to_string(o.shard->second)) : Json(nullptr);
  info["split"] = o.split_name.empty() ? Json(nullptr) : Json(o.split_name);
  if (o.calibrated) {
    info["timeout"] = calibrated_rule(*o.calibrated);
    info["cpu_budgets"] = std::move(cpu_budgets);
  }
  outcome.summary = summary_json(summary, info, summary_cases);
  FAILMAP_TRY(writer.write("summary.json", dump_compact(outcome.summary) + "\n"));
  if (cache) {
    // Not in SHA256SUMS: the listed files are the same bytes whether or not
    // a line came from the record (schema/GRADING.md "Recording").
    Json note = Json::object();
    note["format"] = "failmap-grade-record";
    note["format_version"] = 1;
    note["recalled_lines"] = recalled_lines;
    note["refused_records"] = refused_records;
    note["recorded"] = recorded;
    note["regrade"] = o.regrade;
    FAILMAP_TRY(writer.write_unlisted("record.json", dump_compact(note) + "\n"));
  }
  FAILMAP_TRY(writer.finish(grading_manifest_header(produced), o.sign_key));
  for (const std::string& why : refused_records)
    outcome.warnings.push_back(why + " — graded anew, the record replaced");
  outcome.graded = produced;
  return outcome;
}

// ---------------------------------------------------------------------------
// merge_gradings

namespace {

// Why a results line is not the one failmap derives from what it says the
// candidate did: the first field that differs, stored and recomputed.
std::string describe_difference(const std::string& at, const Json& stored, const std::string& derived) {
  auto d = parse_json_strict(derived, "the recomputed line");
  std::string what = d ? json_difference(stored, *d, "") : "";
  if (what.empty()) what = "the line is not spelled as failmap writes it (compact JSON, members in failmap's order)";
  return at + ": " + what +
         " — merge re-derives every field from the line's actual values and exceptions and the "
         "archive's case: this line was edited after grading, or graded by another failmap";
}

// Adds the lines of a shard's cpu.jsonl (schema/GRADING.md "cpu.jsonl"), when
// it has one, to `lines` by their `line`. A malformed one is an input error
// naming FILE:LINE; a line the shards give twice, too.
Status read_cpu_lines(const std::filesystem::path& path, std::map<std::uint64_t, std::string>& lines) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return ok_status();
  const std::string file = path.string();
  FAILMAP_TRY_ASSIGN(auto reader, JsonlLines::open(file, k_max_result_line_bytes));
  JsonlLines::Item item;
  while (reader.next(&item)) {
    if (!item.problem.empty()) return input_error(item.problem);
    FAILMAP_TRY_ASSIGN(const Json j, parse_jsonl_line(item.text, file, item.line));
    const std::string at = file + ":" + std::to_string(item.line);
    auto line = j.is_object() ? j.find("line") : j.end();
    if (!j.is_object() || line == j.end() || !line->is_number_unsigned())
      return input_error(at +
                         ": field 'line': expected the prediction's line number (schema/GRADING.md \"cpu.jsonl\")");
    if (!lines.emplace(line->get<std::uint64_t>(), dump_compact(j) + "\n").second)
      return input_error(at + ": line " + std::to_string(line->get<std::uint64_t>()) +
                         " of the predictions appears twice");
  }
  return ok_status();
}

}  // namespace

Result<GradeOutcome> merge_gradings(const std::vector<std::string>& dirs, const std::string& out, CaseLookup& lookup,
                                    const std::optional<std::filesystem::path>& sign_key) {
  struct Part {
    std::string dir;
    std::uint64_t index = 0;
    Json summary;
  };
  std::vector<Part> parts;
  for (const std::string& dir : dirs) {
    FAILMAP_TRY(verify_sums(dir, "failmap-grading"));
    FAILMAP_TRY_ASSIGN(const std::string text, read_file(std::filesystem::path(dir) / "summary.json"));
    FAILMAP_TRY_ASSIGN(Json j, parse_json_strict(text, dir + "/summary.json"));
    const std::string where = dir + "/summary.json";
    if (!j.is_object() || j.value("format", "") != "failmap-grade-summary")
      return input_error(where + ": not a summary.json of failmap grade (format failmap-grade-summary)");
    if (j.value("format_version", 0) != k_grade_summary_version)
      return input_error(where + ": format_version " + dump_compact(j.value("format_version", Json())) +
                         ", this failmap merges version " + std::to_string(k_grade_summary_version) +
                         " (grade the shards again with this failmap)");
    auto shard = j.find("shard");
    if (shard == j.end() || !shard->is_string())
      return input_error(where + ": this folder was not graded with --shard I/N (nothing to merge)");
    auto parsed = parse_shard(shard->get<std::string>());
    if (!parsed) return input_error(where + ": field 'shard': " + parsed.error().message);
    parts.push_back(Part{dir, parsed->first, std::move(j)});
  }
  if (parts.empty()) return input_error("grade merge: name the shard folders");
  const Json& first = parts.front().summary;
  std::uint64_t n = parse_shard(first["shard"].get<std::string>())->second;
  std::map<std::uint64_t, std::string> by_index;
  for (const Part& p : parts) {
    for (const char* key : {"predictions_sha256", "predictions_index_sha256", "predictions_total", "held_out",
                            "sandbox", "split", "split_cases", "timeout"})
      if (p.summary.value(key, Json()) != first.value(key, Json()))
        return input_error(p.dir + "/summary.json: field '" + key + "' is " +
                           dump_compact(p.summary.value(key, Json())) + ", " + parts.front().dir + " has " +
                           dump_compact(first.value(key, Json())) + ": not shards of one grading");
    std::uint64_t pn = parse_shard(p.summary["shard"].get<std::string>())->second;
    if (pn != n)
      return input_error(p.dir + ": a shard of " + std::to_string(pn) + ", " + parts.front().dir + " one of " +
                         std::to_string(n));
    auto [it, fresh] = by_index.emplace(p.index, p.dir);
    if (!fresh)
      return input_error(p.dir + " and " + it->second + " are both shard " + std::to_string(p.index) + "/" +
                         std::to_string(n) + " (overlap)");
  }
  for (std::uint64_t i = 1; i <= n; ++i)
    if (!by_index.count(i))
      return input_error("shard " + std::to_string(i) + "/" + std::to_string(n) +
                         " is missing (a gap): name its folder too");

  // Every results line, by its line in the predictions file, judged again:
  // merge trusts a line only for what the candidate decided (its values,
  // exceptions, how far it got) and re-derives the rest from the archive's
  // case through the code `grade` judges with (schema/GRADING.md "Shards").
  const Json sandbox = first.value("sandbox", Json());
  auto named_mode = sandbox.is_string() ? sandbox_mode_from_name(sandbox.get<std::string>()) : std::nullopt;
  if (!named_mode)
    return input_error(parts.front().dir +
                       "/summary.json: field 'sandbox': expected \"bwrap\", \"none\" or "
                       "\"none+landlock\", got " +
                       dump_compact(sandbox));
  const SandboxMode mode = *named_mode;
  const Json held_out_count = first.value("held_out", Json());
  if (!held_out_count.is_number_unsigned() || held_out_count.get<std::uint64_t>() > 1000)
    return input_error(parts.front().dir +
                       "/summary.json: field 'held_out': expected a whole number from 0 to 1000, got " +
                       dump_compact(held_out_count));
  std::map<std::string, GradingCase> cases;
  std::map<std::uint64_t, std::pair<std::string, SummaryEntry>> lines;
  const std::uint64_t total_lines = first.value("predictions_total", Json(0)).is_number_unsigned()
                                        ? first["predictions_total"].get<std::uint64_t>()
                                        : 0;
  // (case, model, sample) → where it was first seen: grade refuses a repeat in
  // the predictions, so merge refuses one in the shards.
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::string> keys;
  std::map<std::uint64_t, std::int64_t> index_samples;  // line → sample, for the predictions index
  std::map<std::uint64_t, std::string> index_sources;   // line → source SHA-256
  std::map<std::uint64_t, std::string> cpu_lines;       // line → its cpu.jsonl line, from the shards that have one
  for (const Part& p : parts) {
    FAILMAP_TRY(read_cpu_lines(std::filesystem::path(p.dir) / "cpu.jsonl", cpu_lines));
    std::uint64_t previous_line = 0;  // a shard's lines are in input order
    std::string file = (std::filesystem::path(p.dir) / "results.jsonl").string();
    FAILMAP_TRY_ASSIGN(auto reader, JsonlLines::open(file, k_max_result_line_bytes));
    JsonlLines::Item item;
    while (reader.next(&item)) {
      if (!item.problem.empty()) return input_error(item.problem);
      FAILMAP_TRY_ASSIGN(const Json j, parse_jsonl_line(item.text, file, item.line));
      const std::string at = file + ":" + std::to_string(item.line);
      Prediction pred;
      std::string sha;
      try {
        pred.line = j.at("line").get<std::uint64_t>();
        pred.case_id = j.at("case").get<std::string>();
        pred.model = j.at("model").get<std::string>();
        pred.sample = j.at("sample").get<std::int64_t>();
        sha = j.at("source_sha256").get<std::string>();
        if (auto e = j.find("extracted"); e != j.end()) {
          const Json& block = e->at("block");
          pred.extraction =
              SourceExtraction{block.is_null() ? 0 : block.get<std::size_t>(), e->at("blocks").get<std::size_t>()};
        }
      } catch (const std::exception&) {
        return input_error(at + ": not a results line of failmap grade (line, case, model, sample, source_sha256)");
      }
      {
        // What grade refuses in a prediction, merge refuses in a line: the
        // same reader's rules for case, model (NFC, nothing invisible) and
        // sample (0 ≤ s < 2^31).
        Json as_prediction = Json::object();
        as_prediction["case"] = j.at("case");
        as_prediction["model"] = j.at("model");
        as_prediction["sample"] = j.at("sample");
        as_prediction["source"] = "";
        std::vector<InputProblem> problems;
        Prediction checked;
        if (!prediction_from_json(as_prediction, file, item.line, &checked, &problems))
          return input_error(describe(problems.front()));
        if (checked.model != pred.model)
          return input_error(at + ": field 'model': " + dump_compact(Json(pred.model)) +
                             " is not in Unicode Normalization Form C, as grade writes every model name");
      }
      if (pred.line < 1 || pred.line > total_lines)
        return input_error(at + ": field 'line': " + std::to_string(pred.line) + " is not a line of the " +
                           std::to_string(total_lines) + "-line predictions file the shards graded");
      if (pred.line <= previous_line)
        return input_error(at + ": field 'line': " + std::to_string(pred.line) + " after line " +
                           std::to_string(previous_line) +
                           ": a shard's lines are in the order of the predictions file (the line numbers were edited)");
      previous_line = pred.line;
      if (auto [it, fresh] = keys.emplace(std::tuple{pred.case_id, pred.model, pred.sample}, at); !fresh)
        return input_error(at + ": case " + pred.case_id + ", model " + dump_compact(Json(pred.model)) + ", sample " +
                           std::to_string(pred.sample) + " is graded twice (also at " + it->second +
                           "): grade refuses a repeated (case, model, sample)");
      if (shard_of(pred.case_id, sha, n) != p.index - 1)
        return input_error(at + ": prediction line " + std::to_string(pred.line) + " belongs to shard " +
                           std::to_string(shard_of(pred.case_id, sha, n) + 1) + "/" + std::to_string(n) +
                           ", not this folder's " + std::to_string(p.index) + "/" + std::to_string(n));
      auto gc = cases.find(pred.case_id);
      if (gc == cases.end()) {
        FAILMAP_TRY_ASSIGN(auto c, lookup.find_case(pred.case_id));
        if (!c)
          return input_error(at + ": field 'case': no case " + pred.case_id + " in " + lookup.name() +
                             ": merge judges every line again against its case; name the archive the shards "
                             "were graded with (--db)");
        FAILMAP_TRY_ASSIGN(GradingCase g, prepare_grading_case(c->first, c->second, held_out_count.get<std::size_t>()));
        gc = cases.emplace(pred.case_id, std::move(g)).first;
      }
      const Json archive_digest = gc->second.case_digest.empty() ? Json(nullptr) : Json(gc->second.case_digest);
      if (!j.contains("case_digest"))
        return input_error(at +
                           ": field 'case_digest': absent (a line of an older failmap): merge needs the "
                           "digest of the case as graded; grade the predictions again with this failmap");
      if (const Json& stored_digest = j.at("case_digest"); stored_digest != archive_digest)
        return input_error(at + ": field 'case_digest': stored " + dump_compact(stored_digest) + ", case " +
                           pred.case_id + " in " + lookup.name() + " has " + dump_compact(archive_digest) +
                           ": the case changed since it was graded (or the line was edited); grade its "
                           "predictions again against this archive");
      FAILMAP_TRY_ASSIGN(CandidateReport candidate, report_from_results_line(gc->second, j, at));
      GradeResult r = judge_report(gc->second, std::move(candidate));
      std::string derived =
          result_line(pred, gc->second.c.mechanism, sha, gc->second.case_digest, judged_members(r, mode));
      if (derived != item.text) return input_error(describe_difference(at, j, derived));
      index_samples[pred.line] = pred.sample;
      index_sources[pred.line] = sha;
      auto [it, fresh] =
          lines.emplace(pred.line, std::pair{std::move(item.text), summary_entry(pred, gc->second.c.mechanism, r)});
      if (!fresh)
        return input_error(at + ": prediction line " + std::to_string(pred.line) + " is graded twice (overlap)");
    }
  }
  std::uint64_t total = first["predictions_total"].get<std::uint64_t>();
  if (lines.size() != total)
    return input_error("the shards hold " + std::to_string(lines.size()) + " of the " + std::to_string(total) +
                       " predictions of the file they graded");
  // Every line of the file once: their (line, case, model, sample, source)
  // must be the file's, as each shard read it whole.
  {
    std::string index;
    for (const auto& [line, entry] : lines)
      append_index_entry(index, line, entry.second.case_id, entry.second.model, index_samples.at(line),
                         index_sources.at(line));
    const Json stored = first.value("predictions_index_sha256", Json());
    if (stored != Json(sha256_hex(index)))
      return input_error(
          "the shards' lines are not the lines of the predictions file they graded (a line number, "
          "case, model, sample or source edited): its index SHA-256 is " +
          dump_compact(stored) + " in " + parts.front().dir + "/summary.json, the lines give \"" + sha256_hex(index) +
          "\" (schema/GRADING.md \"Shards\")");
  }

  FAILMAP_TRY_ASSIGN(auto writer, HashedFolderWriter::create(out, "grading"));
  FAILMAP_TRY_ASSIGN(const std::size_t results, writer.open("results.jsonl"));
  std::optional<std::size_t> cpu_file;
  if (!cpu_lines.empty()) {
    FAILMAP_TRY_ASSIGN(cpu_file, writer.open("cpu.jsonl", false));
  }
  std::map<std::string, ModelSummary> summary;
  for (auto& [line, entry] : lines) {
    entry.first.push_back('\n');
    FAILMAP_TRY(writer.append(results, entry.first));
    if (auto c = cpu_lines.find(line); cpu_file && c != cpu_lines.end())
      FAILMAP_TRY(writer.append(*cpu_file, c->second));
    add_to_summary(summary, entry.second);
  }
  FAILMAP_TRY(writer.close_files());
  Json info = Json::object();
  info["predictions"] = total;
  info["predictions_total"] = total;
  info["predictions_sha256"] = first["predictions_sha256"];
  info["predictions_index_sha256"] = first["predictions_index_sha256"];
  info["held_out"] = first["held_out"];
  info["sandbox"] = first["sandbox"];
  info["shard"] = nullptr;
  info["split"] = first.value("split", Json());
  if (first.contains("timeout")) {
    // Calibrated budgets: each shard's, of the cases it graded; a case in two
    // shards must have had one budget.
    Json budgets = Json::object();
    for (const Part& p : parts) {
      const Json b = p.summary.value("cpu_budgets", Json());
      if (!b.is_object())
        return input_error(p.dir + "/summary.json: field 'cpu_budgets': expected {case: seconds} beside \"timeout\"");
      for (const auto& [id, seconds] : b.items()) {
        if (!seconds.is_number() || (budgets.contains(id) && budgets[id] != seconds))
          return input_error(p.dir + "/summary.json: field 'cpu_budgets." + id + "': " + dump_compact(seconds) +
                             (seconds.is_number()
                                  ? ", another shard has " + dump_compact(budgets[id]) + ": not shards of one grading"
                                  : ": expected seconds"));
        budgets[id] = seconds;
      }
    }
    Json sorted = Json::object();  // by case id, as grade writes them
    std::map<std::string, Json> by_id;
    for (const auto& [id, seconds] : budgets.items()) by_id.emplace(id, seconds);
    for (const auto& [id, seconds] : by_id) sorted[id] = seconds;
    info["timeout"] = first["timeout"];
    info["cpu_budgets"] = std::move(sorted);
  }
  // The summary's cases, and with a split every case of it (as grade counts them).
  std::optional<std::vector<std::string>> split_ids;
  if (const Json& sc = first.value("split_cases", Json()); sc.is_array()) {
    split_ids.emplace();
    for (const Json& id : sc) {
      if (!id.is_string())
        return input_error(parts.front().dir + "/summary.json: field 'split_cases': expected case ids");
      split_ids->push_back(id.get<std::string>());
    }
  }
  std::map<std::string, Case> split_only;
  SummaryCases summary_cases;
  FAILMAP_TRY(gather_summary_cases(cases, split_ids, lookup, split_only, summary_cases, [&](const std::string& id) {
    return parts.front().dir + "/summary.json: field 'split_cases': no case " + id + " in " + lookup.name();
  }));
  GradeOutcome outcome;
  outcome.summary = summary_json(summary, info, summary_cases);
  FAILMAP_TRY(writer.write("summary.json", dump_compact(outcome.summary) + "\n"));
  FAILMAP_TRY(writer.finish(grading_manifest_header(total), sign_key));
  outcome.graded = total;
  return outcome;
}

}  // namespace failmap
