// Running a strategy over a case's fixtures (docs/glossary.md
// "observation document").
#pragma once

#include <vector>

#include "core/case.h"
#include "core/mechanism.h"
#include "core/result.h"

namespace failmap {

/// The outcome of one run: per fixture, the value solve() returned and
/// whether it equals the expected value under Python's `==`.
struct RunOutcome {
  StrategyKind strategy = StrategyKind::Broken;
  std::vector<Value> actuals;  ///< one per fixture, in fixture order
  /// python_equal(actual, expected) per check: 1 passed, 0 failed. Bytes,
  /// not vector<bool>'s bits: written and read in every check of every run.
  std::vector<unsigned char> passed;
  bool all_passed = true;  ///< Python's all(): true for no fixtures
  /// The reference script's exit status: 0 when all passed, else 1.
  int exit_status() const { return all_passed ? 0 : 1; }
};

/// The compiled-in mechanism of the case, or an Error naming the case and
/// the unknown mechanism id.
Result<const Mechanism*> case_mechanism(const Case& c);

/// Runs `strategy` of the case's mechanism on every fixture. Errors (unknown
/// mechanism, argument type mismatch, arithmetic overflow) name the case, the
/// strategy and the check. In the open build the repaired strategy has no
/// function: an Error (no_repairs_error) before any check runs.
Result<RunOutcome> run_strategy(const Case& c, StrategyKind strategy);
/// As above into `*out`, reusing its vectors' capacity (run --all runs
/// every case into the same outcomes). On an Error `*out` is unspecified.
Status run_strategy(const Case& c, StrategyKind strategy, RunOutcome* out);
/// As above with the case's mechanism already found (case_mechanism, looked
/// up once for all three strategies of a case).
Status run_strategy(const Case& c, const Mechanism& mechanism, StrategyKind strategy, RunOutcome* out);

/// As run_strategy, with actual values already known (stored runs): only the
/// comparison is recomputed.
RunOutcome outcome_from_actuals(const Case& c, StrategyKind strategy, std::vector<Value> actuals);

}  // namespace failmap
