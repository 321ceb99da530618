// failmap verify-bundle DIR [--pubkey PUB.pem] [--open OPEN_DIR] [--json]
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "io/bundle_verify.h"
#include "io/json.h"

namespace failmap::cli {
namespace {

struct VerifyBundleOptions {
  std::string dir;
  std::string pubkey;
  std::string open_dir;
  bool json = false;
};

int run_verify_bundle(const VerifyBundleOptions& o) {
  BundleVerifyOptions options;
  if (!o.pubkey.empty()) options.pubkey = o.pubkey;
  if (!o.open_dir.empty()) options.open_dir = o.open_dir;
  BundleVerifyReport r = verify_bundle(o.dir, options);
  int status = r.unusable() ? k_exit_input : r.clean() ? k_exit_ok : k_exit_mismatch;
  if (o.json) {
    Json list = Json::array();
    for (const BundleProblem& p : r.problems)
      list.push_back(Json{{"kind", p.kind == BundleProblem::Kind::Input ? "input" : "mismatch"},
                          {"file", p.file},
                          {"line", p.line},
                          {"column", p.column},
                          {"field", p.field},
                          {"message", p.message},
                          {"expected", p.expected},
                          {"found", p.found}});
    std::cout << dump_compact(Json{{"ok", status == k_exit_ok},
                                   {"files", r.files},
                                   {"mechanisms", r.mechanisms},
                                   {"cases", r.cases},
                                   {"runs", r.runs},
                                   {"signature", !options.pubkey ? "not checked"
                                                 : r.signature_checked ? "valid"
                                                 : r.signature_present ? "invalid"
                                                                       : "absent"},
                                   {"commitments", r.commitments_checked},
                                   {"commitments_matching_open", r.commitments_matched_open},
                                   {"problems", list}})
              << "\n";
    return status;
  }
  // Unusable input: every problem, mismatches too, is an error on stderr
  // and the whole report (no summary); otherwise every problem is a line of
  // the report on stdout. One report, one stream.
  if (status == k_exit_input) {
    for (const BundleProblem& p : r.problems) std::cerr << "failmap: error: " << terminal_safe(describe(p)) << "\n";
    return status;
  }
  // A file rewritten wholesale (a sed over every line) would give a line per
  // record: the first k_shown_per_file problems of each file's lines are
  // printed, then one line with the count of the others (--json has all).
  constexpr std::size_t k_shown_per_file = 10;
  std::size_t mismatches = r.problems.size();
  std::map<std::string, std::size_t> of_lines;  // file -> problems at one of its lines
  std::vector<std::string> capped;              // files with problems not shown, in order
  for (const BundleProblem& p : r.problems) {
    if (p.line > 0) {
      std::size_t n = ++of_lines[p.file];
      if (n == k_shown_per_file + 1) capped.push_back(p.file);
      if (n > k_shown_per_file) continue;
    }
    std::cout << terminal_safe(describe(p)) << "\n";
  }
  for (const std::string& file : capped)
    std::cout << terminal_safe(file) << ": " << of_lines[file] - k_shown_per_file << " more mismatch(es) at its lines, "
              << of_lines[file] << " in all (--json lists every one)\n";
  std::cout << "verified " << terminal_safe(o.dir) << " (" << tier_name(r.manifest->tier) << " tier): " << r.files << " file(s), "
            << r.mechanisms << " mechanism(s), " << r.cases << " case(s), " << r.runs << " run(s); signature "
            << (!options.pubkey ? (r.signature_present ? "present, not checked (no --pubkey)" : "absent")
                                : (r.signature_checked ? "valid"
                                   : r.signature_present ? "INVALID"
                                                         : "absent (the bundle is not signed)"));
  if (!r.records_checked) std::cout << "; records not read (manifest.json is damaged)";
  if (r.commitments_checked) std::cout << "; " << r.commitments_checked << " repair commitment(s) recomputed";
  if (options.open_dir) std::cout << ", " << r.commitments_matched_open << " matching " << terminal_safe(o.open_dir);
  std::cout << ": " << (mismatches ? std::to_string(mismatches) + " mismatch(es)" : std::string("everything matches")) << "\n";
  return status;
}

}  // namespace

void setup_verify_bundle(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<VerifyBundleOptions>();
  sub.add_option("dir", o->dir, "bundle folder written by `failmap export`")
      ->required()
      ->check(nonempty_validator("the path of a bundle folder"));
  sub.add_option("--pubkey", o->pubkey,
                 "Ed25519 public key (PEM, `openssl pkey -pubout`): manifest.json.sig must exist and verify; an unsigned "
                 "bundle is reported as such (signature absent) and, like an invalid signature, exits 1")
      ->check(nonempty_validator("the path of an Ed25519 public key (PEM)"));  // "" would skip the check
  sub.add_option("--open", o->open_dir,
                 "open-tier bundle: every repair of the member bundle DIR must match the commitment it publishes")
      ->check(nonempty_validator("the path of an open-tier bundle folder"));
  sub.add_flag("--json", o->json,
               "one JSON object: ok, files, mechanisms, cases, runs, signature (not checked, valid, invalid or absent), "
               "commitments, commitments_matching_open, problems [{kind, file, line, column, field, message, expected, "
               "found}] (line and column 0, field \"\" where they do not apply); exit 1 when a check failed, 2 when "
               "the input cannot be used at all");
  sub.callback([&ctx, o] { ctx.exit_status = run_verify_bundle(*o); });
}

}  // namespace failmap::cli
