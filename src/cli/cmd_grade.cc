// failmap grade PREDICTIONS.jsonl --out DIR [--jobs N] [--held-out K] [--timeout S] [--memory MIB]
//                [--sandbox bwrap|none] [--shard I/N] [--json]
// failmap grade merge DIR... --out DIR [--json]
//
// Parses the options, hands the archive to the grading workflow
// (src/grade/grading.h) as a CaseLookup and a GradingCache, and prints the
// summary: a table, or summary.json with --json.
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/grading_cache.h"
#include "cli/progress_bar.h"
#include "encoding/input_problem.h"
#include "encoding/signature.h"
#include "grade/grading.h"
#include "store/sqlite.h"

namespace failmap::cli {

// grade compare and grade forget (cmd_grade_compare.cc).
void setup_grade_compare_forget(CLI::App& sub, Context& ctx, CLI::App** compare, CLI::App** forget);

namespace {

// The workflow's options the command takes as they are (predictions, out,
// jobs, held_out, split_dir, split_name, regrade), and those it reads first.
struct GradeCliOptions : GradeOptions {
  std::string timeout = "10";  // SECONDS, or calibrated[:F] (calibration_factor)
  std::uint64_t memory_mib = 1024;
  std::string sandbox = "bwrap";
  std::string shard;
  bool no_record = false;
  bool json = false;
  std::string sign;  // --sign KEY.pem
};

struct MergeCliOptions {
  std::vector<std::string> dirs;
  std::string out;
  bool json = false;
  std::string sign;  // --sign KEY.pem
};

// A decimal the validators accepted, read as they read it (std::from_chars,
// whatever the locale).
double decimal(const std::string& text) {
  double v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  return v;
}

// --timeout: SECONDS (positive_decimal_validator's words for a bad number),
// or calibrated[:F] with 0 < F <= 1000.
CLI::Validator timeout_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.rfind("calibrated", 0) == 0)
          return calibration_factor(text) ? ""
                                          : "expected calibrated or calibrated:F with F a factor greater than 0 and at "
                                            "most 1000, got '" +
                                                text + "'";
        std::string number = text;
        return positive_decimal_validator(k_max_cpu_seconds, "seconds")(number);
      },
      "SECONDS|calibrated[:F]");
}

// stderr, unless --quiet, after a signed grading: how to check the folder.
void note_signed(const Context& ctx, const std::string& out, const std::string& sign) {
  if (!ctx.quiet && !sign.empty())
    std::cerr << "signed " << terminal_safe(out) << " (" << verify_advice(out, sign) << ")\n";
}

// The summary on stdout: summary.json with --json, else a table.
void print_summary(const Json& s, bool json, const std::string& headline) {
  if (json) std::cout << dump_compact(s) << "\n";
  else std::cout << headline << "\n" << summary_table(s);
  std::cout.flush();
}

int run_grade(Context& ctx, const GradeCliOptions& o) {
  GradeOptions g = o;
  auto key = signing_key_option(o.sign);
  if (!key) return report(key.error());
  g.sign_key = *key;
  if (o.sandbox == "bwrap") g.mode = SandboxMode::Bubblewrap;
  else if (o.sandbox == "none") g.mode = unnamespaced_mode();
  else return report(input_error("--sandbox: expected bwrap or none, got '" + o.sandbox + "'"));
  if (!o.shard.empty()) {
    auto s = parse_shard(o.shard);
    if (!s) return report(s.error());
    g.shard = *s;
  }
  if (auto factor = calibration_factor(o.timeout)) {
    // Each case's budget is calibrated before its candidates run; the
    // calibration itself runs under the largest budget.
    g.calibrated = *factor;
    g.limits = candidate_limits(k_max_cpu_seconds, o.memory_mib);
  } else {
    g.limits = candidate_limits(decimal(o.timeout), o.memory_mib);
  }

  LazyArchive archive(ctx, o.no_record ? Archive::Mode::ReadOnly : Archive::Mode::ReadWrite);
  ArchiveCases cases(archive);
  ArchiveGradingCache cache(archive);
  std::unique_ptr<Progress> progress;
  GradeHooks hooks;
  hooks.start = [&](std::size_t total) {
    if (std::string w = sandbox_mode_warning(g.mode); !w.empty() && !ctx.quiet)
      std::cerr << "failmap: warning: " << w << "\n";
    progress = std::make_unique<Progress>(ctx, "grading", total);
  };
  hooks.advance = [&] { progress->advance(); };
  hooks.interrupted = [] { return interrupt_requested(); };
  auto outcome = grade_predictions(g, cases, o.no_record ? nullptr : &cache, hooks);
  if (progress) progress->finish();
  if (auto s = check_interrupt(); !s) return report(s.error());
  if (!outcome) return report(outcome.error());
  if (!outcome->problems.empty()) {
    std::vector<std::string> lines;
    for (const InputProblem& p : outcome->problems) lines.push_back(describe(p));
    report_all(lines);
    return report(input_error(std::to_string(outcome->problems.size()) + " problem(s) in " + o.predictions +
                              "; nothing was graded"));
  }
  if (!ctx.quiet)
    for (const std::string& w : outcome->warnings) std::cerr << "failmap: warning: " << terminal_safe(w) << "\n";
  print_summary(outcome->summary, o.json,
                "graded " + std::to_string(outcome->graded) + " prediction(s) into " + terminal_safe(o.out));
  note_signed(ctx, o.out, o.sign);
  return k_exit_ok;
}

// Joins the folders of `grade --shard I/N` runs of one predictions file into
// the folder an unsharded run writes (schema/GRADING.md "Shards").
int run_merge(Context& ctx, const MergeCliOptions& o) {
  if (o.dirs.empty()) return report(input_error("grade merge: name the shard folders"));
  auto key = signing_key_option(o.sign);
  if (!key) return report(key.error());
  LazyArchive archive(ctx, Archive::Mode::ReadOnly);
  ArchiveCases cases(archive);
  auto outcome = merge_gradings(o.dirs, o.out, cases, *key);
  if (!outcome) return report(outcome.error());
  print_summary(outcome->summary, o.json,
                "merged " + std::to_string(o.dirs.size()) + " shard(s), " + std::to_string(outcome->graded) +
                    " prediction(s), into " + terminal_safe(o.out));
  note_signed(ctx, o.out, o.sign);
  return k_exit_ok;
}

}  // namespace

void setup_grade(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<GradeCliOptions>();
  auto m = std::make_shared<MergeCliOptions>();
  CLI::App* merge = sub.add_subcommand(
      "merge", "Join the folders of `grade --shard I/N` runs into one, as an unsharded run writes it");
  merge->add_option("dirs", m->dirs, "the shard folders, every I of 1..N once")
      ->required()
      ->check(nonempty_validator("the path of a shard's folder"));
  merge->add_option("-o,--out", m->out, "output folder, new or empty")
      ->required()
      ->check(nonempty_validator("the path of an output folder"));
  merge->add_flag("--json", m->json, "print the merged summary.json on stdout");
  merge
      ->add_option("--sign", m->sign,
                   "Ed25519 private key (PEM): writes manifest.json.sig, the raw signature over manifest.json "
                   "(`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  merge->callback([&ctx, m] { ctx.exit_status = run_merge(ctx, *m); });
  sub.add_option(
         "predictions", o->predictions,
         "JSON Lines, one candidate per line: {\"case\", \"model\", \"sample\", \"source\"} (schema/GRADING.md)")
      ->check(nonempty_validator("the path of a predictions file"));
  sub.add_option("-o,--out", o->out,
                 "output folder, new or empty: results.jsonl, summary.json, SHA256SUMS, moved into place when complete")
      ->check(nonempty_validator("the path of an output folder"));
  sub.add_option("-j,--jobs", o->jobs,
                 "grade on N sandboxed workers, each a warm Python; the results are identical for every N")
      ->capture_default_str()
      ->check(jobs_validator());
  sub.add_option("--held-out", o->held_out,
                 "also grade each candidate at K further bindings of the case's parameters, drawn deterministically "
                 "from the mechanism's domain (catches a fix that special-cases the visible fixtures)")
      ->capture_default_str()
      ->check(integer_validator(0, 1000, "a whole number of bindings"));
  sub.add_option(
         "--timeout", o->timeout,
         "seconds of CPU time (user + system) one candidate may use for all its calls; the wall clock is only a "
         "safety net at 5 x that + 5 s, so a busy machine does not change verdicts. calibrated[:F] (F default 10): "
         "each case its own budget, F x the CPU time of its broken and unsuccessful sources measured first, at "
         "least 1 s, rounded up to a power of two seconds, at most 3600")
      ->capture_default_str()
      ->check(timeout_validator());
  sub.add_option("--memory", o->memory_mib, "MiB of address space one candidate may use")
      ->capture_default_str()
      ->check(integer_validator(64, 1u << 20, "a whole number of MiB"));
  sub.add_option("--sandbox", o->sandbox,
                 "bwrap: namespaces (bubblewrap), limits and seccomp; none: for machines without user namespaces, "
                 "limits and seccomp, and Landlock where the kernel has it (reads /usr only, writes its own folder "
                 "only); without Landlock a candidate can write what you can (warns; recorded in every result)")
      ->capture_default_str()
      ->check(sandbox_validator());
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
  sub.add_flag("--regrade", o->regrade,
               "recall no recorded grading: grade every candidate anew and replace its record");
  sub.add_flag("--json", o->json, "print summary.json on stdout instead of the table");
  sub.add_option("--sign", o->sign,
                 "Ed25519 private key (PEM, `openssl genpkey -algorithm ed25519`): writes manifest.json.sig, the raw "
                 "signature over manifest.json (`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  CLI::App* compare = nullptr;
  CLI::App* forget = nullptr;
  setup_grade_compare_forget(sub, ctx, &compare, &forget);
  sub.callback([&ctx, o, merge, compare, forget] {
    if (merge->parsed() || compare->parsed() || forget->parsed()) return;
    if (o->regrade && o->no_record) {
      ctx.exit_status =
          report(input_error("--regrade and --no-record: --no-record neither reads nor writes the record, "
                             "--regrade writes it anew; give one"));
      return;
    }
    if (o->predictions.empty() || o->out.empty()) {
      ctx.exit_status = report(input_error("grade: give PREDICTIONS.jsonl and --out DIR (see failmap grade --help)"));
      return;
    }
    ctx.exit_status = run_interruptible([&] { return run_grade(ctx, *o); }, "nothing was written to " + o->out);
  });
}

}  // namespace failmap::cli
