// A recorded run as the runs table holds it (compact: its actual values
// when they rebuild the observation document) and the rebuilding of its
// document. Stored and read by the Archive members of store/runs.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "core/run.h"

namespace failmap {

class Archive;

/// A recorded run as the runs table holds it: `run` with its observation
/// document still to be rebuilt from `actuals` (rebuild_observation) when
/// they are set; otherwise `run.observation` is the document kept verbatim.
struct StoredRunRow {
  RunRecord run;
  std::optional<std::string> actuals;
};

/// A recorded run whose stored actual values do not decode, left out by
/// Archive::load_runs when asked to (`digest regenerate
/// --discard-unreadable-runs`).
struct UnreadableRun {
  StrategyKind strategy = StrategyKind::Broken;
  std::string why;  ///< the decoding error, "ARCHIVE: case ID, STRATEGY run actuals:..."
};

/// Whether `failmap run ID` would refuse the case of a recorded run whose
/// stored values do not decode, which decides the command its refusal names.
enum class RunRefusal {
  No,       ///< the case is as digested: `failmap run ID` records its runs again
  Yes,      ///< changed since digested (or no field digests): `failmap digest
            ///< regenerate --discard-unreadable-runs ID` discards the run first
  Unknown,  ///< not known where the run is read (a worker thread): both, with the condition
};

/// The advice ending the refusal of a recorded run of case `id` whose stored
/// values (actuals, observation) do not decode: " (the recorded run was
/// changed after it was recorded: `failmap run ID` records the case's runs
/// again)", or the `digest regenerate --discard-unreadable-runs ID` that
/// works when `run` refuses the case (`refusal`).
std::string unreadable_run_advice(const std::string& id, RunRefusal refusal);

/// For a command over every case, which stops at the first case holding a
/// run that no longer decodes: `e` with one more sentence saying that other
/// cases may hold such runs too and naming the commands that mend them all
/// at once (`failmap run --all`; `failmap digest regenerate
/// --discard-unreadable-runs` without ids when a case changed too), so that
/// the user does not meet them one refusal at a time. `e` unchanged when it
/// is not such a refusal (no unreadable_run_advice in it), and when `archive`
/// holds no other case.
Error with_other_unreadable_runs(Archive& archive, Error e);

/// Rebuilds `row.run.observation` from `row.actuals` against `fixtures`'s
/// fixtures and clears the actuals (nothing to do without them). Touches no
/// archive, so any thread may call it. Errors (prefixed by `where`) as
/// outcome_from_actuals_text, followed by unreadable_run_advice(`refusal`).
Status rebuild_observation(const Case& fixtures, StoredRunRow& row, const std::string& where,
                           RunRefusal refusal = RunRefusal::Unknown);
/// rebuild_observation for each of `rows`, runs of case `fixtures.id`; an
/// Error is prefixed "ARCHIVE: case ID, STRATEGY run actuals" (ARCHIVE is
/// `archive_path`).
Status rebuild_observations(const Case& fixtures, std::vector<StoredRunRow>& rows, const std::string& archive_path,
                            RunRefusal refusal = RunRefusal::Unknown);

}  // namespace failmap
