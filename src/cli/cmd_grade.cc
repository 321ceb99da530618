// failmap grade PREDICTIONS.jsonl --out DIR [--jobs N] [--held-out K] [--timeout S] [--memory MIB]
//                [--sandbox bwrap|none] [--shard I/N] [--json]
// failmap grade merge DIR... --out DIR [--json]
//
// Grades a model's candidate fixes (schema/GRADING.md): each prediction's
// source runs in the sandbox (src/grade/sandbox.h) against its case's
// fixtures; failmap compares, builds the observation and decides the verdict
// (src/grade/grader.h). Writes DIR/results.jsonl (one line per prediction,
// in input order, identical for every --jobs), DIR/summary.json (pass@k per
// model and mechanism), DIR/manifest.json (manifest.json.sig with --sign) and
// DIR/SHA256SUMS, moved into place when complete.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "cli/common.h"
#include "cli/progress.h"
#include "grade/grader.h"
#include "io/case_file.h"
#include "io/embedded.h"
#include "io/predictions.h"
#include "io/sha256.h"
#include "io/signature.h"
#include "io/split_folder.h"
#include "store/gradings.h"
#include "store/sqlite.h"

namespace failmap::cli {
namespace {

struct GradeCliOptions {
  std::string predictions;
  std::string out;
  unsigned jobs = 2;
  std::size_t held_out = 0;
  double timeout = 10.0;
  std::uint64_t memory_mib = 1024;
  std::string sandbox = "bwrap";
  std::string shard;
  std::string split_dir;
  std::string split_name;
  bool no_record = false;
  bool json = false;
  std::string sign;  // --sign KEY.pem
};

// "I/N" with 1 <= I <= N <= 4096.
Result<std::pair<std::uint64_t, std::uint64_t>> parse_shard(const std::string& text) {
  // Digits only on both sides (std::stoull took " 1/3" and "+1/3").
  auto bad = [&] { return input_error("--shard: expected I/N with 1 <= I <= N <= 4096 (e.g. 2/4), got '" + text + "'"); };
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

// The shard of a prediction: SHA-256 of case id, NUL, source SHA-256 (hex),
// its first 8 bytes big-endian, modulo N (schema/GRADING.md "Shards").
std::uint64_t shard_of(const std::string& case_id, const std::string& source_sha256, std::uint64_t n) {
  std::string key = case_id;
  key.push_back('\0');
  key += source_sha256;
  return std::stoull(sha256_hex(key).substr(0, 16), nullptr, 16) % n;
}

struct Item {
  std::size_t seq = 0;
  Prediction p;
  std::string source_sha256;
};

// What a recorded grading depends on besides the case and the source: the
// archive's cache key (schema/GRADING.md "Recording"). The driver's digest
// stands for the sandbox's behaviour; failmap's version for the judging.
std::string grading_settings(std::size_t held_out, const SandboxLimits& limits, SandboxMode mode) {
  Json s = Json::object();
  s["failmap"] = FAILMAP_VERSION;
  s["driver_sha256"] = sha256_hex(embedded_file("driver.py"));
  s["held_out"] = held_out;
  s["wall_seconds"] = limits.wall_seconds;
  s["cpu_seconds"] = limits.cpu_seconds;
  s["memory_bytes"] = limits.memory_bytes;
  s["sandbox"] = std::string(sandbox_mode_name(mode));
  return dump_compact(s);
}

// The summary on stdout: summary.json with --json, else a table.
void print_summary(const Json& s, bool json, const std::string& headline) {
  if (json) {
    std::cout << dump_compact(s) << "\n";
    return;
  }
  std::cout << headline << "\n";
  std::printf("%-24s %11s %9s %8s %11s %7s  %s\n", "MODEL", "PREDICTIONS", "RESOLVED", "PARTIAL", "UNRESOLVED", "ERRORS",
              "PASS@1");
  for (const auto& [name, m] : s["models"].items()) {
    std::string p1 = m["pass_at_k"].contains("1") ? dump_compact(m["pass_at_k"]["1"]) : "-";
    std::printf("%-24s %11s %9s %8s %11s %7s  %s\n", terminal_safe(name).c_str(), m["predictions"].dump().c_str(),
                m["resolved"].dump().c_str(), m["partial"].dump().c_str(), m["unresolved"].dump().c_str(),
                m["errors"].dump().c_str(), p1.c_str());
  }
  std::fflush(stdout);
}

// --sign KEY.pem as the key to sign the grading's manifest.json with, if any.
std::optional<std::filesystem::path> signing_key(const std::string& sign) {
  if (sign.empty()) return std::nullopt;
  return std::filesystem::path(sign);
}

// stderr, unless --quiet, after a signed grading: how to check the folder.
void note_signed(const Context& ctx, const std::string& out, const std::string& sign) {
  if (!ctx.quiet && !sign.empty()) std::cerr << "signed " << terminal_safe(out) << " (" << verify_advice(out, sign) << ")\n";
}

int run_grade(Context& ctx, const GradeCliOptions& o) {
  SandboxMode mode;
  if (o.sandbox == "bwrap") mode = SandboxMode::Bubblewrap;
  else if (o.sandbox == "none") mode = unnamespaced_mode();
  else return report(input_error("--sandbox: expected bwrap or none, got '" + o.sandbox + "'"));
  if (!o.sign.empty())
    if (auto s = ed25519_check_private_key(o.sign); !s) return report(s.error());
  std::optional<std::pair<std::uint64_t, std::uint64_t>> shard;
  if (!o.shard.empty()) {
    auto s = parse_shard(o.shard);
    if (!s) return report(s.error());
    shard = *s;
  }

  // --split: only the cases of one split of a split folder, whose files
  // must match its SHA256SUMS.
  std::optional<std::map<std::string, std::string>> split_of;  // case id → its split in the folder
  if (o.split_dir.empty() != o.split_name.empty())
    return report(input_error("--split DIR and --split-name NAME go together"));
  if (!o.split_dir.empty()) {
    if (auto s = verify_sums(o.split_dir); !s) return report(s.error());
    auto claims = read_split_folder(o.split_dir, false);
    if (!claims) return report(claims.error());
    split_of.emplace();
    std::set<std::string> names;
    for (const FolderClaim& c : *claims) {
      split_of->emplace(c.claim.id, c.claim.split);
      names.insert(c.claim.split);
    }
    if (!names.count(o.split_name)) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      return report(input_error("--split-name: " + o.split_dir + " has no split '" + o.split_name + "' (it has: " + known + ")"));
    }
  }

  // Pass 1: every line checked, every case looked up, before anything runs.
  std::vector<BundleProblem> problems;
  if (auto ok = check_regular_file(o.predictions, "grade reads the predictions twice: a check of every line, then grading");
      !ok)
    return report(ok.error());
  auto input_sha256 = hash_file(o.predictions);
  if (!input_sha256) return report(input_sha256.error());
  std::map<std::string, std::uint64_t> first_line;  // case id → first line naming it
  std::size_t count = 0;
  read_predictions(
      o.predictions,
      [&](Prediction&& p) {
        ++count;
        if (split_of) {
          auto it = split_of->find(p.case_id);
          if (it == split_of->end() || it->second != o.split_name) {
            problems.push_back(input_problem(
                o.predictions, p.line, "case",
                "case " + p.case_id + " is not in split '" + o.split_name + "' of " + o.split_dir +
                    (it == split_of->end() ? " (nor in any other of its splits)" : " (it is in '" + it->second + "')")));
            return;
          }
        }
        first_line.emplace(p.case_id, p.line);
      },
      &problems);
  if (problems.empty() && count == 0)
    return report(input_error(o.predictions + ": holds no prediction (expected one JSON object per line: "
                                              "{\"case\", \"model\", \"sample\", \"source\"}, schema/GRADING.md)"));
  auto archive = open_archive(ctx, o.no_record ? Archive::Mode::ReadOnly : Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  std::map<std::string, GradingCase> cases;
  for (const auto& [id, line] : first_line) {
    auto c = archive->load_case(id);
    if (!c) return report(c.error());
    if (!*c) {
      problems.push_back(input_problem(o.predictions, line, "case",
                                       "no case " + id + " in " + archive->db().path() + " (`failmap list` shows its cases)"));
      continue;
    }
    auto digest = archive->case_digest(id);
    if (!digest) return report(digest.error());
    auto g = prepare_grading_case(**c, digest->value_or(""), o.held_out);
    if (!g) return report(g.error());
    cases.emplace(id, std::move(*g));
  }
  if (!problems.empty()) {
    // In line order: a case the archive lacks was found after reading every line.
    std::stable_sort(problems.begin(), problems.end(),
                     [](const BundleProblem& a, const BundleProblem& b) { return a.line < b.line; });
    std::vector<std::string> lines;
    for (const BundleProblem& p : problems) lines.push_back(describe(p));
    report_all(lines);
    return report(input_error(std::to_string(problems.size()) + " problem(s) in " + o.predictions + "; nothing was graded"));
  }
  if (mode == SandboxMode::Bubblewrap)
    if (auto why = sandbox_unavailable()) return report(input_error("cannot sandbox candidates: " + *why));
  if (mode == SandboxMode::None && !ctx.quiet)
    std::cerr << "failmap: warning: --sandbox none on a kernel without Landlock: candidates run with resource limits "
                 "and seccomp only, so a candidate can read and write every file this user can (the archive too, even "
                 "with --no-record, and the source tree and $HOME); every result line says \"sandbox\": \"none\"\n";
  if (mode == SandboxMode::NoneLandlock && !ctx.quiet)
    std::cerr << "failmap: warning: --sandbox none: no namespaces; candidates run with resource limits, seccomp and "
                 "Landlock (they may read only /usr and write only their own temporary folder); every result line says "
                 "\"sandbox\": \"none+landlock\"\n";

  auto writer = SplitFolderWriter::create(o.out, "grading");
  if (!writer) return report(writer.error());
  auto results_file = writer->open("results.jsonl");
  if (!results_file) return report(results_file.error());

  SandboxLimits limits;
  limits.wall_seconds = o.timeout;
  limits.cpu_seconds = static_cast<std::uint32_t>(o.timeout + 0.999);
  limits.memory_bytes = o.memory_mib << 20;

  // Pass 2: read again, grade on --jobs threads, write in input order.
  std::mutex mu;
  std::condition_variable changed;
  std::deque<Item> queue;
  // A graded prediction waiting for its turn to be written.
  struct Done {
    std::string line;         // its results line
    SummaryEntry entry;       // what the summary counts of it
    std::string judged;       // judged members to record ("" when they came from the record)
    std::string case_digest;  // the record's key
    std::string source_sha256;
  };
  std::map<std::size_t, Done> done;  // by input position
  // The archive's record of gradings (schema/GRADING.md "Recording"),
  // read and written on this thread only.
  std::optional<GradingRecord> record;
  if (!o.no_record) {
    auto r = GradingRecord::open(*archive);
    if (!r) return report(r.error());
    record.emplace(std::move(*r));
  }
  const std::string settings = grading_settings(o.held_out, limits, mode);
  std::size_t next_write = 0, produced = 0;
  bool input_done = false;
  const std::size_t window = 8 * std::size_t{o.jobs};
  std::map<std::string, ModelSummary> summary;
  Status write_status = ok_status();
  Progress progress(ctx, "grading", count);

  auto worker = [&] {
    SandboxWorker sandbox(mode, limits);
    for (;;) {
      Item item;
      {
        std::unique_lock lock(mu);
        // Woken by new work, the end of the input, or (polled) an interrupt.
        while (!changed.wait_for(lock, std::chrono::milliseconds(100),
                                 [&] { return !queue.empty() || input_done || interrupt_requested(); })) {
        }
        if (queue.empty() || interrupt_requested()) return;
        item = std::move(queue.front());
        queue.pop_front();
        changed.notify_all();
      }
      const GradingCase& gc = cases.at(item.p.case_id);
      auto run = sandbox.run(item.p.source, gc.calls);
      GradeResult r = judge(gc, run, limits);
      Json judged = judged_members(r, mode);
      Done d{result_line(item.p, gc.c.mechanism, item.source_sha256, gc.case_digest, judged, false),
             summary_entry(item.p, gc.c.mechanism, r), dump_compact(judged), gc.case_digest, item.source_sha256};
      std::lock_guard lock(mu);
      done.emplace(item.seq, std::move(d));
      changed.notify_all();
    }
  };
  // Writes every result that is next in order (call with mu held).
  auto drain = [&] {
    while (!done.empty() && done.begin()->first == next_write) {
      auto node = done.extract(done.begin());
      Done& d = node.mapped();
      d.line.push_back('\n');
      if (write_status) write_status = writer->append(*results_file, d.line);
      if (write_status && record && !d.judged.empty() && !d.case_digest.empty())
        write_status = record->record(d.case_digest, d.source_sha256, settings, d.judged);
      add_to_summary(summary, d.entry);
      ++next_write;
      progress.advance();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < o.jobs; ++i) threads.emplace_back(worker);
  std::vector<BundleProblem> again;
  read_predictions(
      o.predictions,
      [&](Prediction&& p) {
        std::string sha = sha256_hex(p.source);
        if (shard && shard_of(p.case_id, sha, shard->second) != shard->first - 1) return;
        std::unique_lock lock(mu);
        while (!changed.wait_for(lock, std::chrono::milliseconds(100), [&] {
          drain();
          return produced < next_write + window || interrupt_requested();
        })) {
        }
        if (interrupt_requested()) return;
        const GradingCase& gc = cases.at(p.case_id);
        if (record && !gc.case_digest.empty()) {
          auto hit = record->find(gc.case_digest, sha, settings);
          if (!hit) {
            if (write_status) write_status = hit.error();
          } else if (*hit) {
            auto judged = parse_json_strict(**hit, "the archive's record of a grading");
            if (judged && judged->is_object() && judged->contains("verdict") && judged->contains("held_out")) {
              done.emplace(produced++, Done{result_line(p, gc.c.mechanism, sha, gc.case_digest, *judged, true),
                                            summary_entry(p, gc.c.mechanism, *judged), "", "", ""});
              changed.notify_all();
              return;
            }
          }
        }
        queue.push_back(Item{produced++, std::move(p), std::move(sha)});
        changed.notify_all();
      },
      &again, false);  // pass 1 refused repeated keys; the file's digest below shows it unchanged since
  {
    std::unique_lock lock(mu);
    input_done = true;
    changed.notify_all();
    while (!changed.wait_for(lock, std::chrono::milliseconds(100), [&] {
      drain();
      return next_write == produced || interrupt_requested();
    })) {
    }
  }
  for (auto& t : threads) t.join();
  progress.finish();
  if (auto s = check_interrupt(); !s) return report(s.error());
  if (!again.empty()) return report(input_error(o.predictions + " changed while it was graded: " + describe(again.front())));
  auto after = hash_file(o.predictions);
  if (!after) return report(after.error());
  if (*after != *input_sha256)
    return report(input_error(o.predictions + " changed while it was graded (its SHA-256 is no longer " + *input_sha256 + ")"));
  if (!write_status) return report(write_status.error());
  if (record)
    if (auto s = record->finish(); !s) return report(s.error());
  if (auto s = writer->close_files(); !s) return report(s.error());

  Json info = Json::object();
  info["predictions"] = produced;
  info["predictions_total"] = count;
  info["predictions_sha256"] = *input_sha256;
  info["held_out"] = o.held_out;
  info["sandbox"] = std::string(sandbox_mode_name(mode));
  info["shard"] = shard ? Json(std::to_string(shard->first) + "/" + std::to_string(shard->second)) : Json(nullptr);
  info["split"] = o.split_name.empty() ? Json(nullptr) : Json(o.split_name);
  Json s = summary_json(summary, info);
  if (auto st = writer->write("summary.json", dump_compact(s) + "\n"); !st) return report(st.error());
  if (auto st = writer->finish(grading_manifest_header(produced), signing_key(o.sign)); !st) return report(st.error());
  print_summary(s, o.json, "graded " + std::to_string(produced) + " prediction(s) into " + terminal_safe(o.out));
  note_signed(ctx, o.out, o.sign);
  return k_exit_ok;
}

// A long string member (an observation document) shown around where two
// spellings first differ.
std::string excerpt(const Json& v, std::size_t from) {
  if (!v.is_string() || v.get<std::string>().size() <= 160) return dump_compact(v);
  const std::string& s = v.get<std::string>();
  std::size_t begin = from > 40 ? from - 40 : 0;
  while (begin > 0 && (static_cast<unsigned char>(s[begin]) & 0xC0) == 0x80) --begin;  // whole UTF-8 characters
  std::size_t end = std::min(s.size(), begin + 120);
  while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
  return (begin ? "…" : "") + dump_compact(Json(s.substr(begin, end - begin))) + (end < s.size() ? "…" : "");
}

// The first place where `stored` and `derived` differ, as a field path
// ("checks[2].passed") with both values; empty when they are equal.
std::string first_difference(const Json& stored, const Json& derived, const std::string& path) {
  if (stored == derived) return "";
  if (stored.is_object() && derived.is_object()) {
    for (const auto& [key, v] : derived.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      auto it = stored.find(key);
      if (it == stored.end()) return "field '" + at + "': absent, recomputed " + dump_compact(v);
      if (auto d = first_difference(*it, v, at); !d.empty()) return d;
    }
    for (const auto& [key, v] : stored.items())
      if (!derived.contains(key))
        return "field '" + (path.empty() ? key : path + "." + key) + "': stored " + dump_compact(v) + ", which failmap does not write";
    return "field '" + path + "': its members in another order than failmap writes them";
  }
  // Short lists of other lengths are shown whole; long ones from the first element that differs.
  if (stored.is_array() && derived.is_array() &&
      (stored.size() == derived.size() || dump_compact(stored).size() + dump_compact(derived).size() > 240)) {
    const std::size_t common = std::min(stored.size(), derived.size());
    for (std::size_t i = 0; i < common; ++i)
      if (auto d = first_difference(stored[i], derived[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    const std::string at = path + "[" + std::to_string(common) + "]";
    return "field '" + at + "': " + (common < stored.size() ? "stored " + dump_compact(stored[common]) : "absent") + ", " +
           (common < derived.size() ? "recomputed " + dump_compact(derived[common]) : "not recomputed (failmap writes " +
                                                                                        std::to_string(common) + " elements)");
  }
  std::size_t from = 0;
  if (stored.is_string() && derived.is_string()) {
    const std::string &a = stored.get_ref<const std::string&>(), &b = derived.get_ref<const std::string&>();
    while (from < a.size() && from < b.size() && a[from] == b[from]) ++from;
  }
  return "field '" + path + "': stored " + excerpt(stored, from) + ", recomputed " + excerpt(derived, from);
}

// Why a results line is not the one failmap derives from what it says the
// candidate did: the first field that differs, stored and recomputed.
std::string describe_difference(const std::string& at, const Json& stored, const std::string& derived) {
  auto d = parse_json_strict(derived, "the recomputed line");
  std::string what = d ? first_difference(stored, *d, "") : "";
  if (what.empty()) what = "the line is not spelled as failmap writes it (compact JSON, members in failmap's order)";
  return at + ": " + what + " — merge re-derives every field from the line's actual values and exceptions and the "
                            "archive's case: this line was edited after grading, or graded by another failmap";
}

struct MergeCliOptions {
  std::vector<std::string> dirs;
  std::string out;
  bool json = false;
  std::string sign;  // --sign KEY.pem
};

// Joins the folders of `grade --shard I/N` runs of one predictions file into
// the folder an unsharded run writes (schema/GRADING.md "Shards").
int run_merge(Context& ctx, const MergeCliOptions& o) {
  struct Part {
    std::string dir;
    std::uint64_t index = 0;
    Json summary;
  };
  if (!o.sign.empty())
    if (auto s = ed25519_check_private_key(o.sign); !s) return report(s.error());
  std::vector<Part> parts;
  for (const std::string& dir : o.dirs) {
    if (auto s = verify_sums(dir, "file changed since the grading wrote it"); !s) return report(s.error());
    auto text = read_file(std::filesystem::path(dir) / "summary.json");
    if (!text) return report(text.error());
    auto j = parse_json_strict(*text, dir + "/summary.json");
    if (!j) return report(j.error());
    const std::string where = dir + "/summary.json";
    if (!j->is_object() || j->value("format", "") != "failmap-grade-summary" || j->value("format_version", 0) != 1)
      return report(input_error(where + ": not a summary.json of failmap grade (format failmap-grade-summary, version 1)"));
    auto shard = j->find("shard");
    if (shard == j->end() || !shard->is_string())
      return report(input_error(where + ": this folder was not graded with --shard I/N (nothing to merge)"));
    auto parsed = parse_shard(shard->get<std::string>());
    if (!parsed) return report(input_error(where + ": field 'shard': " + parsed.error().message));
    parts.push_back(Part{dir, parsed->first, std::move(*j)});
  }
  if (parts.empty()) return report(input_error("grade merge: name the shard folders"));
  const Json& first = parts.front().summary;
  std::uint64_t n = parse_shard(first["shard"].get<std::string>())->second;
  std::map<std::uint64_t, std::string> by_index;
  for (const Part& p : parts) {
    for (const char* key : {"predictions_sha256", "predictions_total", "held_out", "sandbox", "split"})
      if (p.summary.value(key, Json()) != first.value(key, Json()))
        return report(input_error(p.dir + "/summary.json: field '" + key + "' is " + dump_compact(p.summary.value(key, Json())) +
                                  ", " + parts.front().dir + " has " + dump_compact(first.value(key, Json())) +
                                  ": not shards of one grading"));
    std::uint64_t pn = parse_shard(p.summary["shard"].get<std::string>())->second;
    if (pn != n)
      return report(input_error(p.dir + ": a shard of " + std::to_string(pn) + ", " + parts.front().dir + " one of " +
                                std::to_string(n)));
    auto [it, fresh] = by_index.emplace(p.index, p.dir);
    if (!fresh)
      return report(input_error(p.dir + " and " + it->second + " are both shard " + std::to_string(p.index) + "/" +
                                std::to_string(n) + " (overlap)"));
  }
  for (std::uint64_t i = 1; i <= n; ++i)
    if (!by_index.count(i))
      return report(input_error("shard " + std::to_string(i) + "/" + std::to_string(n) + " is missing (a gap): name its folder too"));

  // Every results line, by its line in the predictions file, judged again:
  // merge trusts a line only for what the candidate decided (its values,
  // exceptions, how far it got) and re-derives the rest from the archive's
  // case through the code `grade` judges with (schema/GRADING.md "Shards").
  const Json sandbox = first.value("sandbox", Json());
  auto named_mode = sandbox.is_string() ? sandbox_mode_from_name(sandbox.get<std::string>()) : std::nullopt;
  if (!named_mode)
    return report(input_error(parts.front().dir + "/summary.json: field 'sandbox': expected \"bwrap\", \"none\" or "
                                                  "\"none+landlock\", got " + dump_compact(sandbox)));
  const SandboxMode mode = *named_mode;
  const Json held_out_count = first.value("held_out", Json());
  if (!held_out_count.is_number_unsigned() || held_out_count.get<std::uint64_t>() > 1000)
    return report(input_error(parts.front().dir + "/summary.json: field 'held_out': expected a whole number from 0 to 1000, got " +
                              dump_compact(held_out_count)));
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  std::map<std::string, GradingCase> cases;
  std::map<std::uint64_t, std::pair<std::string, SummaryEntry>> lines;
  for (const Part& p : parts) {
    std::string file = (std::filesystem::path(p.dir) / "results.jsonl").string();
    auto reader = JsonlLines::open(file);
    if (!reader) return report(reader.error());
    JsonlLines::Item item;
    while (reader->next(&item)) {
      if (!item.problem.empty()) return report(input_error(item.problem));
      auto j = parse_jsonl_line(item.text, file, item.line);
      if (!j) return report(j.error());
      const std::string at = file + ":" + std::to_string(item.line);
      Prediction pred;
      std::string sha;
      bool cached = false;
      try {
        pred.line = j->at("line").get<std::uint64_t>();
        pred.case_id = j->at("case").get<std::string>();
        pred.model = j->at("model").get<std::string>();
        pred.sample = j->at("sample").get<std::int64_t>();
        sha = j->at("source_sha256").get<std::string>();
        cached = j->at("cached").get<bool>();
      } catch (const std::exception&) {
        return report(input_error(at + ": not a results line of failmap grade (line, case, model, sample, "
                                       "source_sha256, cached)"));
      }
      if (shard_of(pred.case_id, sha, n) != p.index - 1)
        return report(input_error(at + ": prediction line " + std::to_string(pred.line) + " belongs to shard " +
                                  std::to_string(shard_of(pred.case_id, sha, n) + 1) + "/" + std::to_string(n) +
                                  ", not this folder's " + std::to_string(p.index) + "/" + std::to_string(n)));
      auto gc = cases.find(pred.case_id);
      if (gc == cases.end()) {
        auto c = archive->load_case(pred.case_id);
        if (!c) return report(c.error());
        if (!*c)
          return report(input_error(at + ": field 'case': no case " + pred.case_id + " in " + archive->db().path() +
                                    ": merge judges every line again against its case; name the archive the shards "
                                    "were graded with (--db)"));
        auto digest = archive->case_digest(pred.case_id);
        if (!digest) return report(digest.error());
        auto g = prepare_grading_case(**c, digest->value_or(""), held_out_count.get<std::size_t>());
        if (!g) return report(g.error());
        gc = cases.emplace(pred.case_id, std::move(*g)).first;
      }
      const Json archive_digest = gc->second.case_digest.empty() ? Json(nullptr) : Json(gc->second.case_digest);
      if (!j->contains("case_digest"))
        return report(input_error(at + ": field 'case_digest': absent (a line of an older failmap): merge needs the "
                                       "digest of the case as graded; grade the predictions again with this failmap"));
      if (const Json& stored_digest = j->at("case_digest"); stored_digest != archive_digest)
        return report(input_error(at + ": field 'case_digest': stored " + dump_compact(stored_digest) + ", case " +
                                  pred.case_id + " in " + archive->db().path() + " has " + dump_compact(archive_digest) +
                                  ": the case changed since it was graded (or the line was edited); grade its "
                                  "predictions again against this archive"));
      auto candidate = report_from_results_line(gc->second, *j, at);
      if (!candidate) return report(candidate.error());
      GradeResult r = judge_report(gc->second, std::move(*candidate));
      std::string derived =
          result_line(pred, gc->second.c.mechanism, sha, gc->second.case_digest, judged_members(r, mode), cached);
      if (derived != item.text) return report(input_error(describe_difference(at, *j, derived)));
      auto [it, fresh] =
          lines.emplace(pred.line, std::pair{std::move(item.text), summary_entry(pred, gc->second.c.mechanism, r)});
      if (!fresh) return report(input_error(at + ": prediction line " + std::to_string(pred.line) + " is graded twice (overlap)"));
    }
  }
  std::uint64_t total = first["predictions_total"].get<std::uint64_t>();
  if (lines.size() != total)
    return report(input_error("the shards hold " + std::to_string(lines.size()) + " of the " + std::to_string(total) +
                              " predictions of the file they graded"));

  auto writer = SplitFolderWriter::create(o.out, "grading");
  if (!writer) return report(writer.error());
  auto results = writer->open("results.jsonl");
  if (!results) return report(results.error());
  std::map<std::string, ModelSummary> summary;
  for (auto& [line, entry] : lines) {
    entry.first.push_back('\n');
    if (auto s = writer->append(*results, entry.first); !s) return report(s.error());
    add_to_summary(summary, entry.second);
  }
  if (auto s = writer->close_files(); !s) return report(s.error());
  Json info = Json::object();
  info["predictions"] = total;
  info["predictions_total"] = total;
  info["predictions_sha256"] = first["predictions_sha256"];
  info["held_out"] = first["held_out"];
  info["sandbox"] = first["sandbox"];
  info["shard"] = nullptr;
  info["split"] = first.value("split", Json());
  Json s = summary_json(summary, info);
  if (auto st = writer->write("summary.json", dump_compact(s) + "\n"); !st) return report(st.error());
  if (auto st = writer->finish(grading_manifest_header(total), signing_key(o.sign)); !st) return report(st.error());
  note_signed(ctx, o.out, o.sign);
  print_summary(s, o.json, "merged " + std::to_string(n) + " shard(s), " + std::to_string(total) + " prediction(s), into " +
                               terminal_safe(o.out));
  return k_exit_ok;
}

}  // namespace

void setup_grade(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<GradeCliOptions>();
  auto m = std::make_shared<MergeCliOptions>();
  CLI::App* merge = sub.add_subcommand("merge", "Join the folders of `grade --shard I/N` runs into one, as an unsharded run writes it");
  merge->add_option("dirs", m->dirs, "the shard folders, every I of 1..N once")
      ->required()
      ->check(nonempty_validator("the path of a shard's folder"));
  merge->add_option("-o,--out", m->out, "output folder, new or empty")
      ->required()
      ->check(nonempty_validator("the path of an output folder"));
  merge->add_flag("--json", m->json, "print the merged summary.json on stdout");
  merge->add_option("--sign", m->sign,
                    "Ed25519 private key (PEM): writes manifest.json.sig, the raw signature over manifest.json "
                    "(`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  merge->callback([&ctx, m] { ctx.exit_status = run_merge(ctx, *m); });
  sub.add_option("predictions", o->predictions,
                 "JSON Lines, one candidate per line: {\"case\", \"model\", \"sample\", \"source\"} (schema/GRADING.md)")
      ->check(nonempty_validator("the path of a predictions file"));
  sub.add_option("-o,--out", o->out,
                 "output folder, new or empty: results.jsonl, summary.json, SHA256SUMS, moved into place when complete")
      ->check(nonempty_validator("the path of an output folder"));
  sub.add_option("-j,--jobs", o->jobs, "grade on N sandboxed workers, each a warm Python; the results are identical for every N")
      ->capture_default_str()
      ->check(jobs_validator());
  sub.add_option("--held-out", o->held_out,
                 "also grade each candidate at K further bindings of the case's parameters, drawn deterministically "
                 "from the mechanism's domain (catches a fix that special-cases the visible fixtures)")
      ->capture_default_str()
      ->check(integer_validator(0, 1000, "a whole number of bindings"));
  sub.add_option("--timeout", o->timeout, "seconds of wall clock (and of CPU) one candidate may take for all its calls")
      ->capture_default_str()
      ->check(positive_decimal_validator(3600, "seconds"));
  sub.add_option("--memory", o->memory_mib, "MiB of address space one candidate may use")
      ->capture_default_str()
      ->check(integer_validator(64, 1u << 20, "a whole number of MiB"));
  sub.add_option("--sandbox", o->sandbox,
                 "bwrap: namespaces (bubblewrap), limits and seccomp; none: for machines without user namespaces, "
                 "limits and seccomp, and Landlock where the kernel has it (reads /usr only, writes its own folder "
                 "only); without Landlock a candidate can write what you can (warns; recorded in every result)")
      ->capture_default_str();
  sub.add_option("--shard", o->shard,
                 "grade only shard I of N (1-based): a deterministic share of the predictions by case and source; "
                 "`failmap grade merge` joins the shards' folders")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            auto parsed = parse_shard(text);  // an empty --shard "" is refused too, never read as no shard
            return parsed ? "" : parsed.error().message.substr(std::string("--shard: ").size());
          },
          "I/N"));
  sub.add_option("--split", o->split_dir,
                 "a split folder (failmap split --out DIR): grade only the cases of --split-name, refuse predictions "
                 "for others; its files must match its SHA256SUMS")
      ->check(nonempty_validator("the path of a split folder"));
  sub.add_option("--split-name", o->split_name, "the split of --split to grade, e.g. test")
      ->check(nonempty_validator("the name of one of the split folder's splits"));
  sub.add_flag("--no-record", o->no_record,
               "write nothing to the archive and use none of its recorded gradings (grade every candidate anew)");
  sub.add_flag("--json", o->json, "print summary.json on stdout instead of the table");
  sub.add_option("--sign", o->sign,
                 "Ed25519 private key (PEM, `openssl genpkey -algorithm ed25519`): writes manifest.json.sig, the raw "
                 "signature over manifest.json (`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  sub.callback([&ctx, o, merge] {
    if (merge->parsed()) return;
    if (o->predictions.empty() || o->out.empty()) {
      ctx.exit_status = report(input_error("grade: give PREDICTIONS.jsonl and --out DIR (see failmap grade --help)"));
      return;
    }
    ctx.exit_status = run_interruptible([&] { return run_grade(ctx, *o); }, "nothing was written to " + o->out);
  });
}

}  // namespace failmap::cli
