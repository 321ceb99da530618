// Export of the archive as a static web site (`failmap export --format
// site`): the pages of src/io/site.h written into a folder with
// manifest.json (format "failmap-site") and SHA256SUMS, as the other exports
// write theirs (store/exporter.h).
#pragma once

#include "store/archive.h"
#include "store/exporter.h"

namespace failmap {

/// Writes the whole archive as a site at `options.tier` into `options.out`:
/// index.html, units.html, style.css, case-<id>.html for every case,
/// mechanism-<id>.html for every mechanism with a case, leaderboard.html
/// when options.results names grading folders with models, then manifest.json
/// (signed when options.sign_key) and SHA256SUMS over every file, paths
/// relative to the folder. Cases are read in id order in batches of 1,024,
/// each checked as export_jsonl checks it (checked_archived_case) and
/// rendered on options.jobs threads; the bytes are the same for every
/// value. Input errors: case ids given (a site covers the whole archive:
/// its index and mechanism pages list every case), a case that fails its
/// check, a results folder that is not a grading whose files match its
/// manifest (read_grading_folder), one model graded twice on one split;
/// nothing is left at `options.out` on any error. Reports the cases
/// (report.cases), the pages written (report.pages, the stylesheet not
/// counted) and the mechanisms.
Result<ExportReport> export_site(Archive& archive, const ExportOptions& options);

}  // namespace failmap
