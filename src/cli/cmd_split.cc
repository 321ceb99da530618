// failmap split (--ratios NAME=SHARE,... | --folds K) --out DIR [--seed S] [--stable]
//               [--group-by content] [--test-tier open|member] [--format cases|tasks]
//               [--input ITEMS.jsonl --group-field F ...]
// failmap split check DIR [--input ITEMS.jsonl --group-field F ...]
//
// The algorithm and the folder format are in schema/SPLITS.md.
#include <climits>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "core/split.h"
#include "encoding/json.h"
#include "io/split_folder.h"
#include "store/split_export.h"

namespace failmap::cli {
namespace {

// `split`'s options: the request, and --json (print manifest.json).
struct SplitOptions : SplitRequest {
  bool json = false;
};

// `split check`'s options: the request, and --json (one JSON object).
struct CheckOptions : SplitCheckRequest {
  bool json = false;
};

// stderr, unless --quiet, after a signed split: how to check the folder.
void note_signed(const Context& ctx, const SplitOptions& o) {
  if (!ctx.quiet && !o.sign.empty())
    std::cerr << "signed " << terminal_safe(o.out) << " (" << verify_advice(o.out, o.sign) << ")\n";
}

// Run under run_interruptible: a SIGINT or SIGTERM stops the split at its
// next step, and the staging folder is removed, so nothing appears beside
// --out. Then, on stderr: the notes (unless --quiet) and the warnings; on
// stdout (--quiet quiets stderr only): manifest.json with --json, else the
// report.
int run_split(Context& ctx, const SplitOptions& o) {
  if (o.out.empty()) return report(input_error("split: --out DIR is required"));
  if (o.ratios.empty() == !o.folds_given)
    return report(input_error("split: give exactly one of --ratios NAME=SHARE,... and --folds K"));
  return run_interruptible(
      [&] {
        auto r = o.input.empty() ? split_archive(o, [&ctx] { return open_archive(ctx, Archive::Mode::ReadOnly); })
                                 : split_listing(o);
        if (!r) return report(r.error());
        if (std::string note = rescaled_note(o, *r); !ctx.quiet && !note.empty())
          std::cerr << "failmap: note: " << note << "\n";
        note_signed(ctx, o);
        if (!ctx.quiet && o.input.empty())
          for (const std::string& w : large_unit_warnings(o, *r))
            std::cerr << "failmap: warning: " << terminal_safe(w) << "\n";
        // A warning, not chatter: printed with --quiet too.
        if (r->runs_recorded == 0 && o.input.empty() && o.format == "cases")
          std::cerr << "failmap: note: " << terminal_safe(r->archive_path)
                    << " holds no recorded runs: the split files hold case records only (manifest.json \"runs\": 0; "
                       "`failmap run --all` records them, then split again)\n";
        std::cout << (o.json ? dump_compact(r->manifest) + "\n" : split_report(o, *r));
        return k_exit_ok;
      },
      "nothing was written to " + o.out);
}

// "a, b, c" (the FILE:LINE places of one finding).
std::string comma_list(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Prints every unit of one audit that straddles splits.
void print_straddles(const AuditResult& r, const char* what) {
  for (const Straddle& s : r.straddles) {
    std::cout << what << " " << s.unit_key << " is in more than one split:\n";
    std::string current;
    for (const auto& [split, id] : s.members) {
      if (split != current) std::cout << (current.empty() ? "" : "\n") << "  " << split << ":";
      current = split;
      std::cout << " " << id;
    }
    std::cout << "\n";
  }
}

int run_check(Context& ctx, const CheckOptions& o) {
  auto audit = audit_split_folder(o, [&ctx] { return open_archive(ctx, Archive::Mode::ReadOnly); });
  if (!audit) return report(audit.error());
  const SplitAudit& a = *audit;
  const bool clean = a.clean();
  if (o.json) {
    Json leaks = Json::array();
    auto add_leaks = [&](const AuditResult& r, const char* kind) {
      for (const Straddle& st : r.straddles) {
        Json members = Json::array();
        for (const auto& [split, id] : st.members) members.push_back(Json{{"split", split}, {"id", id}});
        leaks.push_back(Json{{"kind", kind}, {"unit", st.unit_key}, {"members", members}});
      }
    };
    add_leaks(a.by_unit, "unit");
    if (a.by_content) add_leaks(*a.by_content, "duplicate content");
    Json unknown = Json::array();
    for (const std::string& id : a.by_unit.unknown_ids)
      unknown.push_back(Json{{"id", id}, {"where", a.where_claimed(id)}});
    Json repeated = Json::array();
    for (const DuplicateClaim& d : a.duplicates)
      repeated.push_back(Json{{"id", d.id}, {"split", d.split}, {"where", d.where}});
    std::cout << dump_compact(Json{{"clean", clean},
                                   {"lines", a.claims.size()},
                                   {"claimed_items", a.by_unit.claimed_items},
                                   {"items", a.items},
                                   {"units", a.units},
                                   {"leaks", leaks},
                                   {"unknown_ids", unknown},
                                   {"duplicates", repeated}})
              << "\n";
    return clean ? k_exit_ok : k_exit_mismatch;
  }
  TerminalSafeStdout safe;  // ids, unit keys and file names come from the audited files
  print_straddles(a.by_unit, "LEAK: unit");
  if (a.by_content) print_straddles(*a.by_content, "LEAK: duplicate content");
  for (const std::string& id : a.by_unit.unknown_ids) {
    std::cout << "UNKNOWN: id " << id << " is no " << (a.listing ? "item of the listing" : "case in the archive")
              << " (" << comma_list(a.where_claimed(id)) << ")\n";
  }
  for (const DuplicateClaim& d : a.duplicates)
    std::cout << "DUPLICATE: id " << d.id << " is listed " << d.where.size() << " times for split " << d.split << " ("
              << comma_list(d.where) << ")\n";
  std::cout << (clean ? "clean" : "LEAKING") << ": " << a.claims.size() << " line(s), " << a.by_unit.claimed_items
            << " of " << a.items << " " << (a.listing ? "item(s)" : "case(s)") << " in " << a.units << " unit(s)\n";
  return clean ? k_exit_ok : k_exit_mismatch;
}

}  // namespace

void setup_split(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<SplitOptions>();
  sub.add_option("--ratios", o->ratios,
                 "named shares summing to 1, e.g. train=0.8,test=0.2 (or train=0.7,dev=0.1,test=0.2)");
  CLI::Option* folds =
      sub.add_option("--folds", o->folds, "K folds instead of ratio splits (every unit in exactly one fold)");
  // A K above the number of units is named by assign_folds.
  folds->check(integer_validator(2, INT_MAX, "a whole number of folds"));
  sub.add_option("--seed", o->seed, "seed of the assignment (default 0); recorded in manifest.json")
      ->check(integer_validator(0, UINT64_MAX, "an integer"));
  sub.add_option("--out", o->out, "output folder (created; must be empty if it exists)")
      ->check(nonempty_validator("the path of an output folder"));
  sub.add_flag("--stable", o->stable, "hash bucketing: a unit's split depends only on seed and unit key");
  CLI::Option* group_by = sub.add_option("--group-by", o->group_by,
                                         "tags (mechanism + evaluation_group, default) or content (also link "
                                         "cases with identical fixtures)");
  CLI::Option* test_tier = sub.add_option("--test-tier", o->test_tier,
                                          "tier of every split but train (every fold with "
                                          "--folds): open (default: no repaired runs or source) or member");
  CLI::Option* format = sub.add_option("--format", o->format,
                                       "archive splits: cases (case and run records, default) "
                                       "or tasks (one task record per case, schema/TASKS.md)");
  sub.add_option("--prompt-template", o->prompt_template,
                 "with --format tasks: the template of each task's prompt, UTF-8 text with {{placeholders}} "
                 "(schema/TASKS.md \"Prompt\"; default: the template shown there)")
      ->check(nonempty_validator("the path of a prompt template"));
  sub.add_option("--sign", o->sign,
                 "Ed25519 private key (PEM, `openssl genpkey -algorithm ed25519`): writes manifest.json.sig, the raw "
                 "signature over manifest.json (`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  sub.add_option("--input", o->input, "split an external JSON Lines listing instead of the archive")
      ->check(nonempty_validator("the path of a listing"));
  sub.add_option("--group-field", o->group_fields, "with --input: a field whose values link items (repeatable)");
  sub.require_subcommand(0, 1);

  auto c = std::make_shared<CheckOptions>();
  sub.add_flag("--json", o->json,
               "print the split's manifest.json (one object: seed, ratios or folds, per split "
               "requested and achieved shares, items, units, file digests) instead of the report");
  CLI::App* check = sub.add_subcommand("check", "Audit a split folder for leakage: exit 0 clean, 1 leaking");
  check->add_option("dir", c->dir, "split folder: failmap's own, or *.jsonl files with id (and split) fields")
      ->required()
      ->check(nonempty_validator("the path of a split folder"));
  check->add_option("--input", c->input, "audit against this listing instead of the archive")
      ->check(nonempty_validator("the path of a listing"));
  check->add_option("--group-field", c->group_fields, "with --input: the group fields of the split");
  check->add_flag(
      "--json", c->json,
      "one JSON object: clean, lines, claimed_items, items, units, leaks [{kind, unit, members [{split, id}]}], "
      "unknown_ids [{id, where}], duplicates [{id, split, where}] (ids as the text report prints them)");
  // `split check` audits a folder: an option of the split itself (given
  // before `check`, or after it and handed up) is refused, not ignored.
  check->callback([&ctx, c, &sub] {
    for (const CLI::Option* opt : sub.get_options())
      if (opt->count() > 0 && opt->get_name() != "--help" && opt->get_name() != "--db" &&
          opt->get_name() != "--quiet") {
        ctx.exit_status =
            report(input_error(opt->get_name() + ": an option of `split`, not of `split check DIR`, which " +
                               "takes --input, --group-field and --json after `check`"));
        return;
      }
    ctx.exit_status = run_check(ctx, *c);
  });
  sub.callback([&ctx, o, check, folds, group_by, test_tier, format] {
    o->folds_given = folds->count() > 0;
    o->group_by_given = group_by->count() > 0;
    o->test_tier_given = test_tier->count() > 0;
    o->format_given = format->count() > 0;
    if (!check->parsed()) ctx.exit_status = run_split(ctx, *o);
  });
}

}  // namespace failmap::cli
