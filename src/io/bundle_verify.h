// Verifying a bundle folder (`failmap verify-bundle`, schema/DIGESTS.md
// "Bundle digests"): everything a reader can check without the archive that
// wrote it. Nothing is written.
//
//   1. files: SHA256SUMS against every file, every file listed, none missing;
//      manifest.json's "files" and "sha256" against the data files;
//      format_version (newer: unusable);
//   2. signature (with a public key): manifest.json.sig must exist and be a
//      valid Ed25519 signature over manifest.json's bytes;
//   3. records (JSONL bundles): the manifest's counts; every run's digest
//      (SHA-256 of its observation bytes); every case's case_digest
//      recomputed from the record and the bundle's runs of the case; the
//      mechanism records against the compiled mechanisms; tier rules (no
//      repaired run, published repaired digest or repair salt at the open tier);
//   4. repair commitments: at the member tier, each case's repair_commitment
//      recomputed from its repair_salt and canonical repaired record; with
//      an open bundle, each recomputed commitment against the one the open
//      tier published.
//
// The other hashed folders failmap writes (io/bundle.h FolderKind) get steps
// 1 and 2 and the checks their records allow without the archive:
//   task export (failmap-tasks): every line a task with a "task_id", none
//      twice, no "repaired_source" at the open tier, counts.task;
//   site (failmap-site): only *.html pages and style.css, each counted by
//      kind (counts."case page", "mechanism page", "page", "stylesheet"), no
//      repair section at the open tier;
//   split folder (failmap-split): each split's file holds the items its
//      "splits" entry says, assignments.jsonl one line per item, no item in
//      two splits' files;
//   grading (failmap-grading): results.jsonl's lines (counts.result), no
//      prediction line twice, and summary.json's counts per model
//      (predictions, resolved, partial, unresolved, errors) recounted from
//      the verdicts of results.jsonl.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "encoding/input_problem.h"
#include "io/bundle.h"

namespace failmap {

/// What to check beyond the bundle itself.
struct BundleVerifyOptions {
  /// Ed25519 public key (PEM): manifest.json.sig must exist and verify.
  std::optional<std::filesystem::path> pubkey;
  /// An open-tier bundle whose repair commitments the (member) bundle's
  /// repairs must match; it is verified as a bundle too.
  std::optional<std::filesystem::path> open_dir;
};

/// A case's repair commitment and the case record it comes from.
struct CaseCommitment {
  std::string value;  ///< 64 hex
  std::string file;
  std::uint64_t line = 0;
};

/// What verify_bundle checked and found.
struct BundleVerifyReport {
  std::optional<BundleManifest> manifest;  ///< absent when unusable
  std::uint64_t files = 0;                 ///< files whose SHA-256 was checked
  std::uint64_t mechanisms = 0, cases = 0, runs = 0;
  /// What was read of a folder other than a bundle or page export, by record
  /// type: {"task": N} of a task export, {"page": N} (the HTML pages) of a
  /// site, {"item": N} of a split folder, {"result": N} of a grading.
  std::map<std::string, std::uint64_t> records;
  bool signature_present = false;
  bool signature_checked = false;              ///< verified with options.pubkey
  std::uint64_t commitments_checked = 0;       ///< member cases recomputed from their salt
  std::uint64_t commitments_matched_open = 0;  ///< of those, compared with the open bundle
  std::vector<InputProblem> problems;          ///< in the order found
  /// False when the records were not read: the bundle is unusable, or its
  /// manifest has a damaged member (counts, files, sha256) that reading them
  /// against would only repeat.
  bool records_checked = false;
  /// Case id → the commitment the open tier publishes (open bundle) or the
  /// one recomputed from salt and repaired record (member bundle).
  std::map<std::string, CaseCommitment> commitments;

  /// Set when an input the options name cannot be used: the --pubkey key
  /// (unreadable, not an Ed25519 public key) or the --open bundle (unusable
  /// itself, or not at the open tier beside a member bundle).
  bool options_unusable = false;

  /// True when the input cannot be used at all, so that nothing could be
  /// checked: the folder or its manifest.json is unreadable, unparseable or
  /// of a newer format, its SHA256SUMS unreadable (no `manifest`), or
  /// options_unusable. A bundle that was read and failed a check (a file's
  /// SHA-256, a record, a digest, a count; Input problems of its records
  /// included) is not unusable: its problems are the findings.
  bool unusable() const { return !manifest || options_unusable; }
  /// True when nothing at all was found.
  bool clean() const { return problems.empty(); }
};

/// Verifies the bundle folder `dir` (see the file comment). Never fails as a
/// whole: every problem is in the report, as Mismatch (the bundle differs
/// from what it claims) or Input (it cannot be checked).
BundleVerifyReport verify_bundle(const std::filesystem::path& dir, const BundleVerifyOptions& options);

}  // namespace failmap
