// Observation documents and tables (DESIGN.md "observation document").
#pragma once

#include <string>

#include "core/case.h"
#include "core/evaluate.h"

namespace failmap {

/// The observation document exactly as the Python reference prints it, without
/// the trailing newline:
/// {"observations": [{"check": …, "actual": …, "expected": …, "passed": …}, …], "passed": …}
std::string observation_document(const Case& c, const RunOutcome& run);

/// The observation digest: SHA-256 (lower-case hex) of observation_document().
std::string observation_digest(const std::string& document);

/// The page's observation table, one line per row with '\n' after each:
/// "| Boundary fixture | Actual | Expected | Outcome |", "|---|---|---|---|",
/// then "| label | actual | expected | Passed|Failed |", values printed as
/// json.dumps prints them.
std::string observation_table(const Case& c, const RunOutcome& run);

}  // namespace failmap
