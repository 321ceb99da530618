// failmap export --format jsonl|pages|site|tasks [--tier open|member] [CASE...] --out DIR [--sign KEY.pem] [--jobs N]
//                [--prompt-template FILE]
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/common.h"
#include "encoding/signature.h"
#include "store/exporter.h"
#include "store/site_export.h"

namespace failmap::cli {
namespace {

struct ExportCliOptions {
  std::string format = "jsonl";
  std::string tier = "open";
  std::vector<std::string> ids;
  std::string out;
  std::string sign;
  std::string prompt_template;
  std::vector<std::string> results;  // --results DIR... (site)
  unsigned jobs = 2;
};

int run_export(Context& ctx, const ExportCliOptions& o) {
  auto tier = parse_tier(o.tier);
  if (!tier) return report(input_error("--tier: " + tier.error().message));
  if (*tier == Tier::Member && !k_build_has_repairs) return report(no_repairs_error("export --tier member"));
  if (o.format != "jsonl" && o.format != "pages" && o.format != "site" && o.format != "tasks")
    return report(input_error("--format: expected jsonl, pages, site or tasks, got '" + o.format + "'"));
  if (!o.prompt_template.empty() && o.format != "tasks")
    return report(input_error("--prompt-template: only with --format tasks (the prompt of each task record)"));
  if (!o.results.empty() && o.format != "site")
    return report(input_error("--results: only with --format site (its leaderboard page)"));
  ExportOptions options{*tier, o.ids, o.out, {}};
  for (const std::string& dir : o.results) options.results.emplace_back(dir);
  if (!o.prompt_template.empty()) {
    auto prompt = read_prompt_template(o.prompt_template);
    if (!prompt) return report(prompt.error());
    options.prompt = std::move(*prompt);
  }
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  if (!o.sign.empty()) options.sign_key = o.sign;
  options.jobs = o.jobs;
  auto r = o.format == "jsonl"   ? export_jsonl(*archive, options)
           : o.format == "site"  ? export_site(*archive, options)
           : o.format == "tasks" ? export_tasks(*archive, options)
                                 : export_pages(*archive, options);
  if (!r) return report(r.error());
  if (!ctx.quiet) {
    if (o.format == "jsonl")
      std::cerr << "exported " << r->cases << " case(s), " << r->mechanisms << " mechanism(s), " << r->runs
                << " run(s)";
    else if (o.format == "site")
      std::cerr << "exported a site of " << r->pages << " page(s) (" << r->cases << " case(s), " << r->mechanisms
                << " mechanism(s))";
    else if (o.format == "tasks") std::cerr << "exported " << r->tasks << " task(s)";
    else std::cerr << "exported " << r->pages << " page(s)";
    std::cerr << " at the " << o.tier << " tier to " << terminal_safe(o.out) << (o.sign.empty() ? "" : ", signed");
    if (o.format == "site")
      std::cerr << " (open " << terminal_safe((std::filesystem::path(o.out) / "index.html").string()) << "; "
                << verify_advice(o.out, o.sign) << ")\n";
    else std::cerr << " (" << verify_advice(o.out, o.sign) << ")\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_export(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ExportCliOptions>();
  sub.add_option("cases", o->ids, "case ids to export (default: every case; --format site takes none)");
  sub.add_option("-f,--format", o->format,
                 "jsonl: a JSON Lines bundle (schema/BUNDLE.md); pages: one published page per case; site: a static "
                 "HTML site of the whole archive (docs/export.md); tasks: one task record per case, what a model is "
                 "given (schema/TASKS.md)")
      ->capture_default_str();
  sub.add_option("--prompt-template", o->prompt_template,
                 "with --format tasks: the template of each task's prompt, UTF-8 text with {{placeholders}} "
                 "(schema/TASKS.md \"Prompt\"; default: the template shown there)")
      ->check(nonempty_validator("the path of a prompt template"));
  sub.add_option("--results", o->results,
                 "with --format site: grading folders (failmap grade --out) whose models leaderboard.html shows, per "
                 "split and model (each folder must match its manifest.json and SHA256SUMS)")
      ->check(nonempty_validator("the path of a grading folder"));
  sub.add_option("-t,--tier", o->tier, "open: failure and unsuccessful fix only, never the repair; member: everything")
      ->capture_default_str();
  sub.add_option("-o,--out", o->out,
                 "output folder, new or empty: written beside it and moved into place once complete, so a failed or "
                 "interrupted export leaves nothing there")
      ->required()
      ->check(nonempty_validator("the path of an output folder"));
  sub.add_option("--sign", o->sign,
                 "Ed25519 private key (PEM, `openssl genpkey -algorithm ed25519`): writes manifest.json.sig, the raw "
                 "signature over manifest.json that `openssl pkeyutl -verify -rawin` accepts")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));  // --sign "" would export unsigned
  sub.add_option("-j,--jobs", o->jobs,
                 "render records (or pages) on N threads: the calling one also reads the archive and writes the "
                 "files; the output is identical to --jobs 1")
      ->capture_default_str()
      ->check(jobs_validator());
  sub.callback([&ctx, o] {
    ctx.exit_status = run_interruptible([&] { return run_export(ctx, *o); }, "nothing was written to " + o->out);
  });
}

}  // namespace failmap::cli
