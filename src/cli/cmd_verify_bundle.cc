// failmap verify-bundle DIR [--pubkey PUB.pem] [--require-signature] [--open OPEN_DIR] [--json]
//
// Checks any hashed folder failmap writes (io/bundle.h FolderKind): bundles,
// page, task and site exports, split folders, gradings.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/common.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "io/bundle_verify.h"

namespace failmap::cli {
namespace {

struct VerifyBundleOptions {
  std::string dir;
  std::string pubkey;
  std::string open_dir;
  bool require_signature = false;
  bool json = false;
};

// What the summary line starts with: the gravest finding, else "verified".
// `signature_unmet`: --require-signature without a valid signature.
std::string lead_word(const BundleVerifyReport& r, bool pubkey, bool signature_unmet) {
  if (pubkey && r.signature_present && !r.signature_checked) return "signature INVALID:";
  if (pubkey && !r.signature_present) return "signature missing:";
  if (!r.clean()) return "mismatch:";
  if (signature_unmet) return r.signature_present ? "signature not checked:" : "signature missing:";
  return "verified";
}

// "DIR (KIND[, TIER tier]): N file(s), COUNTS" for the summary line.
std::string found_text(const std::string& dir, const BundleVerifyReport& r) {
  const BundleManifest& m = *r.manifest;
  const FolderKind* kind = find_folder_kind(m.format);
  const bool bundle = m.format == "failmap-bundle" || m.format == "failmap-pages";
  std::string out = terminal_safe(dir) + " (";
  if (!bundle) out += std::string(kind ? kind->noun : "folder") + (m.tiered ? ", " : "");
  if (m.tiered) out += std::string(tier_name(m.tier)) + " tier";
  out += "): " + std::to_string(r.files) + " file(s)";
  if (bundle)
    return out + ", " + std::to_string(r.mechanisms) + " mechanism(s), " + std::to_string(r.cases) + " case(s), " +
           std::to_string(r.runs) + " run(s)";
  for (const auto& [type, n] : r.records) out += ", " + std::to_string(n) + " " + type + "(s)";
  return out;
}

int run_verify_bundle(const VerifyBundleOptions& o) {
  BundleVerifyOptions options;
  if (!o.pubkey.empty()) options.pubkey = o.pubkey;
  if (!o.open_dir.empty()) options.open_dir = o.open_dir;
  BundleVerifyReport r = verify_bundle(o.dir, options);
  // --require-signature: a signature that was not checked and found valid
  // (no --pubkey, or none in the folder) fails the check.
  const bool signature_unmet = o.require_signature && !r.signature_checked;
  int status = r.unusable() ? k_exit_input : r.clean() && !signature_unmet ? k_exit_ok : k_exit_mismatch;
  if (o.json) {
    Json list = Json::array();
    for (const InputProblem& p : r.problems)
      list.push_back(Json{{"kind", p.kind == InputProblem::Kind::Input ? "input" : "mismatch"},
                          {"file", p.file},
                          {"line", p.line},
                          {"column", p.column},
                          {"field", p.field},
                          {"message", p.message},
                          {"expected", p.expected},
                          {"found", p.found}});
    std::cout << dump_compact(Json{{"ok", status == k_exit_ok},
                                   {"kind", r.manifest ? r.manifest->format : std::string()},
                                   {"records", Json(r.records)},
                                   {"signature_required", o.require_signature},
                                   {"files", r.files},
                                   {"mechanisms", r.mechanisms},
                                   {"cases", r.cases},
                                   {"runs", r.runs},
                                   {"signature", !options.pubkey       ? "not checked"
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
    for (const InputProblem& p : r.problems) std::cerr << "failmap: error: " << terminal_safe(describe(p)) << "\n";
    return status;
  }
  // A file rewritten wholesale (a sed over every line) would give a line per
  // record: the first k_shown_per_file problems of each file's lines are
  // printed, then one line with the count of the others (--json has all).
  constexpr std::size_t k_shown_per_file = 10;
  std::size_t mismatches = r.problems.size();
  std::map<std::string, std::size_t> of_lines;  // file -> problems at one of its lines
  std::vector<std::string> capped;              // files with problems not shown, in order
  for (const InputProblem& p : r.problems) {
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
  const FolderKind* kind = find_folder_kind(r.manifest->format);
  const std::string noun(kind ? kind->noun : "folder");
  std::cout << lead_word(r, options.pubkey.has_value(), signature_unmet) << " " << found_text(o.dir, r)
            << "; signature "
            << (!options.pubkey ? (r.signature_present ? "present, not checked (no --pubkey)" : "absent")
                                : (r.signature_checked   ? "valid"
                                   : r.signature_present ? "INVALID"
                                                         : "absent (the " + noun + " is not signed)"));
  if (signature_unmet) std::cout << " (--require-signature" << (options.pubkey ? "" : " needs --pubkey") << ")";
  if (!r.records_checked) std::cout << "; records not read (manifest.json is damaged)";
  if (r.commitments_checked) std::cout << "; " << r.commitments_checked << " repair commitment(s) recomputed";
  if (options.open_dir) std::cout << ", " << r.commitments_matched_open << " matching " << terminal_safe(o.open_dir);
  std::cout << ": "
            << (mismatches        ? std::to_string(mismatches) + " mismatch(es)"
                : signature_unmet ? std::string("everything else matches")
                                  : std::string("everything matches"))
            << "\n";
  return status;
}

}  // namespace

void setup_verify_bundle(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<VerifyBundleOptions>();
  sub.add_option("dir", o->dir,
                 "a folder failmap wrote with manifest.json and SHA256SUMS: a bundle, page, task or site export, a "
                 "split folder or a grading")
      ->required()
      ->check(nonempty_validator("the path of a bundle folder"));
  sub.add_option(
         "--pubkey", o->pubkey,
         "Ed25519 public key (PEM, `openssl pkey -pubout`): manifest.json.sig must exist and verify; an unsigned "
         "bundle is reported as such (signature absent) and, like an invalid signature, exits 1")
      ->check(nonempty_validator("the path of an Ed25519 public key (PEM)"));  // "" would skip the check
  sub.add_flag("--require-signature", o->require_signature,
               "exit 1 unless manifest.json.sig is present and valid under --pubkey (without --pubkey the signature "
               "cannot be checked, so this always fails)");
  sub.add_option("--open", o->open_dir,
                 "open-tier bundle: every repair of the member bundle DIR must match the commitment it publishes")
      ->check(nonempty_validator("the path of an open-tier bundle folder"));
  sub.add_flag("--json", o->json,
               "one JSON object: ok, kind (the manifest's format), records (per record type read, other than a "
               "bundle's), signature_required, files, mechanisms, cases, runs, signature (not checked, valid, invalid "
               "or absent), "
               "commitments, commitments_matching_open, problems [{kind, file, line, column, field, message, expected, "
               "found}] (line and column 0, field \"\" where they do not apply); exit 1 when a check failed, 2 when "
               "the input cannot be used at all");
  sub.callback([&ctx, o] { ctx.exit_status = run_verify_bundle(*o); });
}

}  // namespace failmap::cli
