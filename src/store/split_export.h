// The workflow of `failmap split` (schema/SPLITS.md): the archive's cases
// (split_archive) or an external JSON Lines listing's items (split_listing)
// grouped into units, the units assigned to ratio splits or K folds, and the
// split folder written: SPLIT.jsonl per split (case and run records at each
// split's tier, or task records; a listing's lines as they are),
// assignments.jsonl, manifest.json (signed with --sign) and SHA256SUMS,
// renamed into place only when complete. Also the text a command shows of a
// finished split: its report, its warnings and notes; and `split check`'s
// leakage audit of a split folder (audit_split_folder). Nothing here prints.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/split.h"
#include "encoding/json.h"
#include "io/split_folder.h"
#include "store/archive.h"

namespace failmap {

/// What to split and how: `failmap split`'s options, as given.
struct SplitRequest {
  std::string ratios;        ///< --ratios NAME=SHARE,... ("" with --folds)
  int folds = 0;             ///< --folds K
  bool folds_given = false;  ///< --folds appeared (a given 0 is refused by assign_folds, not taken as absent)
  std::uint64_t seed = 0;
  std::string out;  ///< the output folder, new or empty
  bool stable = false;
  std::string group_by = "tags";          ///< tags or content (archive)
  std::string test_tier = "open";         ///< open or member (archive)
  std::string format = "cases";           ///< cases or tasks (archive)
  std::string prompt_template;            ///< a prompt template file (with format tasks), or ""
  std::string sign;                       ///< an Ed25519 private key (PEM) to sign manifest.json with, or ""
  std::string input;                      ///< a listing to split instead of the archive, or ""
  std::vector<std::string> group_fields;  ///< with input: the fields whose values link items
  bool group_by_given = false;            ///< --group-by appeared (an archive option)
  bool test_tier_given = false;           ///< --test-tier appeared (an archive option)
  bool format_given = false;              ///< --format appeared (an archive option)
};

/// A split written.
struct SplitOutcome {
  Partition partition;                 ///< the items (cases in id order, or listing lines) in units
  Assignment chosen;                   ///< the assignment written
  std::optional<Assignment> balanced;  ///< stable mode: the balanced one of the same seed, for comparison
  /// Archive: per unit, the mechanisms of its cases (sorted).
  std::vector<std::set<std::string>> unit_mechanisms;
  std::uint64_t runs_recorded = 0;  ///< archive: the runs the archive recorded for the cases split
  std::string archive_path;         ///< archive: its path; listing: ""
  Json manifest;                    ///< manifest.json as written
};

/// Splits the listing `o.input` (read_listing with `o.group_fields`) into
/// `o.out`. Input errors: an archive option (--group-by, --test-tier,
/// --format, --prompt-template), an empty listing, the listing's own
/// problems, shares the units cannot meet; the folder's and the signing
/// key's errors; an interrupt (check_interrupt), after which nothing is left
/// at `o.out`.
Result<SplitOutcome> split_listing(const SplitRequest& o);

/// Splits the archive `open_archive` opens (read-only; called once the
/// options and the prompt template are checked) into `o.out`, in one read
/// snapshot: the units first, then every case again with its recorded runs,
/// each checked against its stored digests (a case changed outside failmap
/// is refused as export refuses it). Input errors: --group-field, a bad
/// --group-by, --test-tier or --format, member tier in the open build, the
/// archive's own errors, shares the units cannot meet, an archive that
/// changed while read; an interrupt as split_listing.
Result<SplitOutcome> split_archive(const SplitRequest& o, const std::function<Result<Archive>()>& open_archive);

/// The report of a split, as `split` prints it on stdout: the headline, one
/// row per split (REQUESTED, ACHIEVED, ITEMS, UNITS), the maximal deviation
/// (and, stable, what the balanced assignment gives), then for the archive
/// one row per unit, largest first (UNIT, CASES, SHARE, SPLIT, MECHANISMS).
std::string split_report(const SplitRequest& o, const SplitOutcome& r);

/// One message per unit larger than the smallest share asked for: such a
/// unit keeps the splits from being balanced, whatever the seed. Unit keys
/// as they are (not escaped for a terminal).
std::vector<std::string> large_unit_warnings(const SplitRequest& o, const SplitOutcome& r);

/// When --ratios do not sum to exactly 1 (schema/SPLITS.md "Ratios"):
/// "--ratios sum to 0.999, not 1; normalised to train=0.8008…,test=0.1991…";
/// else "".
std::string rescaled_note(const SplitRequest& o, const SplitOutcome& r);

/// What `failmap split check` audits, as given.
struct SplitCheckRequest {
  std::string dir;                        ///< the split folder (failmap's own, or hand-made *.jsonl files)
  std::string input;                      ///< a listing to audit against instead of the archive, or ""
  std::vector<std::string> group_fields;  ///< with input: the fields whose values link items
};

/// A split folder audited for leakage (schema/SPLITS.md "Leakage audit").
struct SplitAudit {
  bool listing = false;             ///< audited against the listing `input`, not the archive
  std::vector<FolderClaim> claims;  ///< every line's claim (read_split_folder)
  std::size_t items = 0;            ///< the listing's items, or the archive's cases
  std::size_t units = 0;            ///< the units they form
  AuditResult by_unit;              ///< unknown ids and units straddling splits
  /// Archive only: the cases with identical fixtures (one unit per content
  /// digest) straddling splits.
  std::optional<AuditResult> by_content;
  std::vector<DuplicateClaim> duplicates;  ///< ids claimed twice for one split within one file
  /// Nothing unknown, straddling or claimed twice.
  bool clean() const { return by_unit.clean() && (!by_content || by_content->straddles.empty()) && duplicates.empty(); }
  /// "FILE:LINE" of every claim of `id`, in the order read.
  std::vector<std::string> where_claimed(const std::string& id) const;
};

/// Reads the split folder `o.dir` (read_split_folder; ids in their JSON
/// spelling against a listing) and audits its claims against the units of
/// the listing `o.input` (read_listing with `o.group_fields`) or, without
/// one, of the archive `open_archive` opens (read-only, called only then;
/// read in one snapshot), by tags and by content, and for duplicate claims.
/// Errors: --group-field without --input; the folder's, the listing's and
/// the archive's own errors (an archive without cases among them).
Result<SplitAudit> audit_split_folder(const SplitCheckRequest& o, const std::function<Result<Archive>()>& open_archive);

}  // namespace failmap
