// failmap run CASE [--strategy S] [--format json|table]; failmap run --all
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "cli/common.h"
#include "cli/progress_bar.h"
#include "core/evaluate.h"
#include "encoding/json.h"
#include "io/observation.h"
#include "store/runner.h"

namespace failmap::cli {
namespace {

struct RunOptions {
  std::string id;
  std::string strategy;
  std::string format = "table";
  bool all = false;
  bool no_record = false;
  bool json = false;
  unsigned jobs = 1;
};

// Page section heading of each strategy (seeds/000_*.txt "1 / The failure").
const char* section_title(StrategyKind k) {
  switch (k) {
    case StrategyKind::Broken:
      return "1 / The failure";
    case StrategyKind::Unsuccessful:
      return "2 / The unsuccessful fix";
    case StrategyKind::Repaired:
      return "3 / The repair";
  }
  return "";
}

// Appends run --all's line for one run (newline included):
//   ID  STRATEGY  passed|failed  P/N checks passed  exit E  DIGEST[  UNEXPECTED]
// with the columns at 12 and 26, or two spaces after a longer id or name.
// Written through a pointer into room made up front: it is 1 of 3 lines per
// case, for every case of the archive.
void append_run_line(std::string& out, std::string_view id, std::string_view strategy, bool all_passed,
                     std::size_t passed, std::size_t checks, int exit_status, std::string_view digest,
                     bool as_designed) {
  constexpr std::string_view k_checks = " checks passed  exit ", k_unexpected = "  UNEXPECTED";
  const std::size_t at = out.size();
  out.resize(at + std::max<std::size_t>(id.size() + 2, 12) + std::max<std::size_t>(strategy.size() + 2, 14) + 8 +
             3 * 20 + 1 + k_checks.size() + 2 + digest.size() + k_unexpected.size() + 1);
  char* const start = out.data() + at;
  char* p = start;
  auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  auto pad_to = [&p](char* column_start, std::size_t width) {
    char* end = std::max(p + 2, column_start + width);
    std::memset(p, ' ', static_cast<std::size_t>(end - p));
    p = end;
  };
  auto number = [&p](std::size_t n) { p = std::to_chars(p, p + 20, n).ptr; };
  put(id);
  pad_to(start, 12);
  char* strategy_start = p;
  put(strategy);
  pad_to(strategy_start, 14);
  put(all_passed ? "passed  " : "failed  ");
  number(passed);
  *p++ = '/';
  number(checks);
  put(k_checks);
  number(static_cast<std::size_t>(exit_status));
  put("  ");
  put(digest);
  if (!as_designed) put(k_unexpected);
  *p++ = '\n';
  out.resize(static_cast<std::size_t>(p - out.data()));
}

int run_one_case(Context& ctx, const RunOptions& o) {
  if (o.json)  // one case prints its documents or tables; --format json is the one-case JSON
    return report(input_error("--json: only with --all (one JSON object per run); for one case use --format json"));
  if (o.format != "json" && o.format != "table")
    return report(input_error("--format: expected json or table, got '" + o.format + "'"));
  // A document says nothing of the strategy that printed it, and it stays
  // byte for byte what the Python reference prints: one strategy at a time.
  if (o.format == "json" && o.strategy.empty())
    return report(
        input_error("--format json prints one observation document, byte for byte as the Python reference "
                    "does, which does not name its strategy: give --strategy broken, unsuccessful or "
                    "repaired (run --all --json prints one line per run with its case and strategy)"));
  // The open build runs, by default, the two strategies it holds.
  std::vector<StrategyKind> strategies(k_all_strategies.begin(),
                                       k_all_strategies.end() - (k_build_has_repairs ? 0 : 1));
  if (!o.strategy.empty()) {
    auto s = parse_strategy(o.strategy);
    if (!s) return report(s.error());
    if (*s == StrategyKind::Repaired && !k_build_has_repairs) return report(no_repairs_error("--strategy repaired"));
    strategies = {*s};
  }
  auto archive = open_archive(ctx, o.no_record ? Archive::Mode::ReadOnly : Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  auto c = require_case(*archive, o.id);
  if (!c) return report(c.error());

  auto result = run_strategies(*archive, *c, strategies, !o.no_record, utc_now_iso8601());
  if (!result) return report(result.error());
  const std::vector<RunRecord>& runs = result->records;
  const std::vector<RunOutcome>& outcomes = result->outcomes;
  bool all_passed = true;
  // Tables show the archive's labels (the JSON documents are Python's bytes).
  std::optional<TerminalSafeStdout> safe;
  if (o.format == "table") safe.emplace();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    all_passed = all_passed && outcomes[i].all_passed;
    if (o.format == "json") {
      std::cout << runs[i].observation << "\n";
    } else if (runs.size() == 1) {
      std::cout << observation_table(*c, outcomes[i]);
    } else {
      std::cout << (i ? "\n" : "") << c->id << " · " << section_title(runs[i].strategy) << " ("
                << strategy_name(runs[i].strategy) << ")\nExit " << runs[i].exit_status << "\n"
                << observation_table(*c, outcomes[i]) << "SHA-256 / " << runs[i].digest << "\n";
    }
  }
  return all_passed ? k_exit_ok : k_exit_mismatch;
}

// The designed outcome of a strategy: the repair passes every check, the
// broken and unsuccessful strategies fail one or more.
bool as_designed_outcome(StrategyKind k, const RunOutcome& outcome) {
  return (k == StrategyKind::Repaired) == outcome.all_passed;
}

// Every case x strategy. Exit 0 when every run has its designed outcome: the
// repair passes every check, the broken and unsuccessful strategies fail one
// or more.
int run_all(Context& ctx, const RunOptions& o) {
  if (!k_build_has_repairs) return report(no_repairs_error("run --all (it runs the repaired strategy of every case)"));
  auto archive = open_archive(ctx, o.no_record ? Archive::Mode::ReadOnly : Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  auto total = archive->case_count();
  if (!total) return report(total.error());
  Progress progress(ctx, "run --all", static_cast<std::size_t>(*total), Progress::Stdout::Streams);
  std::size_t runs = 0, unexpected = 0;
  RunAllOptions options;
  options.jobs = o.jobs;
  options.record = !o.no_record;
  options.recorded_at = utc_now_iso8601();
  // Each case's three lines, built on the evaluating threads; the sink
  // counts and writes them in id order.
  options.format = [json = o.json](const CaseRuns& cr, std::string& line) {
    for (StrategyKind k : k_all_strategies) {
      const CaseRun& r = cr.runs[static_cast<std::size_t>(k)];
      std::size_t passed = static_cast<std::size_t>(std::count(r.outcome.passed.begin(), r.outcome.passed.end(), 1));
      bool as_designed = as_designed_outcome(k, r.outcome);
      if (json) {
        Json j{{"case", cr.record.id},
               {"strategy", std::string(strategy_name(k))},
               {"exit_status", r.outcome.exit_status()},
               {"passed_checks", passed},
               {"checks", r.outcome.passed.size()},
               {"as_designed", as_designed},
               {"digest", r.digest}};
        line += dump_compact(j);
        line += '\n';
      } else {
        append_run_line(line, cr.record.id, strategy_name(k), r.outcome.all_passed, passed, r.outcome.passed.size(),
                        r.outcome.exit_status(), r.digest, as_designed);
      }
    }
  };
  auto status = run_all_cases(
      *archive, options,
      [&](const CaseRuns& cr) -> Status {
        for (StrategyKind k : k_all_strategies)
          if (!as_designed_outcome(k, cr.runs[static_cast<std::size_t>(k)].outcome)) ++unexpected;
        runs += cr.runs.size();
        std::fwrite(cr.text.data(), 1, cr.text.size(), stdout);
        return ok_status();
      },
      progress.callback());
  progress.finish();
  std::fflush(stdout);
  if (!status) return report(status.error());
  if (!o.json && !ctx.quiet)
    std::cerr << runs << " run(s)" << (o.no_record ? "" : " recorded") << "; " << unexpected
              << " with an outcome other than designed (repaired passes, broken and unsuccessful fail)\n";
  return unexpected == 0 ? k_exit_ok : k_exit_mismatch;
}

}  // namespace

void setup_run(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<RunOptions>();
  sub.add_option("case", o->id, "case id, e.g. FA-98921");
  CLI::Option* strategy_opt =
      sub.add_option("-s,--strategy", o->strategy, "broken, unsuccessful or repaired (default: all three)");
  CLI::Option* format_opt =
      sub.add_option("-f,--format", o->format,
                     "json: the observation document exactly as the Python reference prints it (needs --strategy: "
                     "the document does not name it); table: the page's observation table (default)");
  sub.add_flag("--all", o->all, "run every case with every strategy; exit 0 when each outcome is as designed");
  sub.add_flag("--no-record", o->no_record, "do not record the runs in the archive (opens it read-only)");
  sub.add_flag("--json", o->json, "with --all: one JSON object per run (JSON Lines)");
  CLI::Option* jobs_opt =
      sub.add_option("-j,--jobs", o->jobs,
                     "with --all: evaluate on N threads; output and recorded rows are identical to --jobs 1")
          ->check(jobs_validator());
  sub.callback([&ctx, o, strategy_opt, format_opt, jobs_opt] {
    if (o->all == !o->id.empty()) {
      ctx.exit_status = report(input_error("run: give either a case id or --all"));
      return;
    }
    // Options the other form would silently ignore.
    const char* ignored = nullptr;
    if (o->all && strategy_opt->count())
      ignored = "--strategy: not with --all, which runs every strategy of every case";
    else if (o->all && format_opt->count())
      ignored = "--format: not with --all, which prints one line per run (--json: one JSON object per run)";
    else if (!o->all && jobs_opt->count()) ignored = "--jobs: only with --all (one case runs on one thread)";
    if (ignored) {
      ctx.exit_status = report(input_error(ignored));
      return;
    }
    ctx.exit_status = o->all ? run_interruptible([&] { return run_all(ctx, *o); },
                                                 o->no_record ? "the archive is unchanged (--no-record)" : k_unchanged)
                             : run_one_case(ctx, *o);
  });
}

}  // namespace failmap::cli
