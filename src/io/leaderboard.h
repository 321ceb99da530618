// A site's leaderboard (`failmap export --format site --results DIR...`,
// docs/export.md "Leaderboard"): the scores of graded models read from the
// summary.json of grading folders (schema/GRADING.md "summary.json"), which
// the site shows per split and model. The folders come from anyone: every
// value is checked before it is shown, and a folder is read only when its
// files match its manifest.json and SHA256SUMS.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace failmap {

/// A 95% interval of a rate, both ends in [0, 1], low <= high.
struct ScoreInterval {
  double low = 0, high = 0;
};

/// One mechanism's share of a model's grading (summary.json
/// "models".M."mechanisms".ID).
struct MechanismScore {
  std::string id;
  std::uint64_t cases = 0, predictions = 0, resolved = 0;
  std::optional<double> pass_at_1;        ///< absent when the summary gives none
  std::optional<ScoreInterval> interval;  ///< of pass@1, when the summary gives one
};

/// One model's grading on one split, as the leaderboard shows it.
struct ModelScore {
  std::string split;           ///< summary.json "split"; "" when the grading named none (every case predicted)
  std::string model;           ///< as written in the predictions (shown escaped: site_visible_name)
  std::string folder;          ///< the grading folder it was read from, as given
  std::uint64_t held_out = 0;  ///< held-out bindings per candidate (summary.json "held_out")
  std::uint64_t cases = 0, predictions = 0, resolved = 0, partial = 0, unresolved = 0, errors = 0;
  std::uint64_t held_out_resolved = 0;
  std::vector<std::pair<std::uint64_t, double>> pass_at_k;    ///< (k, pass@k), k ascending
  std::map<std::uint64_t, ScoreInterval> pass_at_k_interval;  ///< k -> 95% interval, where given
  /// Cases attempted of the split's cases, where the summary gives them.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> coverage;
  std::vector<MechanismScore> mechanisms;  ///< by mechanism id
};

/// Reads the scores of every model of one summary.json (`text`, read from
/// `where`, a name for messages). Needed: "format": "failmap-grade-summary",
/// "models" an object whose members each give "cases", "predictions",
/// "resolved", "partial", "unresolved", "errors" (whole numbers) and
/// "pass_at_k" (an object of "K": a number from 0 to 1). Read when present:
/// "split" (a string or null), "held_out", each model's "held_out_resolved",
/// "mechanisms" (ID: {cases, predictions, resolved, pass_at_k}),
/// "pass_at_k_interval" (per model and per mechanism: "K": [LOW, HIGH] or
/// {"low", "high"}, 0 <= LOW <= HIGH <= 1) and "coverage" ({"attempted",
/// "cases"} with attempted <= cases); other members are ignored, so a
/// summary without intervals or coverage shows "-" there. Input errors name
/// `where` and the field: "WHERE: field 'models.M.pass_at_k.1': expected a
/// number from 0 to 1, got \"x\"". Models in name order.
Result<std::vector<ModelScore>> read_grading_scores(std::string_view text, const std::string& where);

/// Reads grading folder `dir` (written by `failmap grade --out` or `grade
/// merge`): its manifest.json must say "failmap-grading" and every file must
/// match it and SHA256SUMS (check_bundle_files); then its summary.json
/// through read_grading_scores. Input errors name the folder and the first
/// problem found ("DIR: not a grading (its manifest.json says
/// 'failmap-tasks')", "DIR/SHA256SUMS:1: 'summary.json': SHA-256 does not
/// match ...").
Result<std::vector<ModelScore>> read_grading_folder(const std::filesystem::path& dir);

}  // namespace failmap
