// Observation documents and tables (docs/glossary.md "observation document":
// exactly what Python's json.dumps(..., ensure_ascii=False) prints).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"

namespace failmap {

/// The observation document exactly as the Python reference prints it, without
/// the trailing newline:
/// {"observations": [{"check": …, "actual": …, "expected": …, "passed": …}, …], "passed": …}
std::string observation_document(const Case& c, const RunOutcome& run);
/// Appends observation_document(c, run) to `out` (reuses its capacity).
void append_observation_document(std::string& out, const Case& c, const RunOutcome& run);
/// Appends check i's actual value, as Python's json.dumps spells it, to `out`.
using ActualWriter = std::function<void(std::string& out, std::size_t i)>;
/// observation_document for a run whose actual values are written by
/// `actual` rather than held as Values (a candidate's report keeps them as
/// its bytes), with `passed` (1 or 0 per check, one per fixture) and
/// `all_passed` (Python's all() of them): the same bytes as
/// observation_document of a RunOutcome holding those values. `reserve`:
/// bytes to make room for up front besides the frame (the actuals' likely size).
std::string observation_document(const Case& c, const std::vector<unsigned char>& passed, bool all_passed,
                                 const ActualWriter& actual, std::size_t reserve = 0);

/// The bytes of a case's observation documents that do not depend on the
/// run (each check's label and expected value, spelled once), so that the
/// documents of the case's three strategies only add each actual value and
/// outcome. Reusable from case to case without allocating.
class ObservationFrame {
 public:
  /// Makes this the frame of `c`'s fixtures.
  void assign(const Case& c);
  /// Appends observation_document(c, run) for the case last assigned (run
  /// has at most as many actual values as the case has fixtures).
  void append_document(std::string& out, const RunOutcome& run) const;
  /// As above, each actual value written by `actual` (observation_document's overload).
  void append_document(std::string& out, const std::vector<unsigned char>& passed, bool all_passed,
                       const ActualWriter& actual) const;

 private:
  // Per fixture i, "{\"check\": LABEL, \"actual\": " (after ", " from the
  // second on), then ", \"expected\": EXPECTED, \"passed\": ".
  std::string m_text;
  std::vector<std::size_t> m_ends;        ///< 2 per fixture: where each of the two parts ends in m_text
  std::vector<std::string> m_labels;      ///< per fixture position: the label last spelled there
  std::vector<std::string> m_label_json;  ///< its JSON string spelling (empty: none yet)
};

/// The actual values of a run as the runs table keeps them
/// (schema/005_compact_runs.sql): json.dumps of the list of actuals,
/// e.g. "[0, 2, 0, 0, 0, 2, 0]". Appended to `out`.
void append_actuals_text(std::string& out, const RunOutcome& run);

/// How a refusal words a list of `actuals` values for a case of `fixtures`
/// fixtures when the two differ: "1 actual value for 7 fixtures".
std::string actuals_count_mismatch(std::size_t actuals, std::size_t fixtures);

/// Reads actuals text back into the run it records: the actual values, and
/// `passed` recomputed against the case's fixtures. An Error (prefixed by
/// `where`) when the text is not a JSON list or has another length than
/// the case has fixtures.
Result<RunOutcome> outcome_from_actuals_text(const Case& c, StrategyKind strategy, std::string_view text,
                                             const std::string& where);

/// True when observation_document(c, outcome_from_actuals_text(c, k,
/// actuals_text(run))) is certain to give back the bytes of
/// observation_document(c, run) without checking: every actual is an int,
/// bool, None or a list of those (their json.dumps text reads back
/// identically). Other values need compact_observation's check.
bool rebuilds_without_check(const RunOutcome& run);

/// The run whose rebuilt document (observation_document) is exactly
/// `document`, or nullopt when no run rebuilds to these bytes (other
/// spacing, `passed` that disagrees with the values, NaN, another number of
/// checks, not JSON): such a document is stored verbatim.
std::optional<RunOutcome> compact_observation(const Case& c, StrategyKind strategy, std::string_view document);

/// The observation digest: SHA-256 (lower-case hex) of observation_document().
std::string observation_digest(const std::string& document);

/// The page's observation table, one line per row with '\n' after each:
/// "| Boundary fixture | Actual | Expected | Outcome |", "|---|---|---|---|",
/// then "| label | actual | expected | Passed|Failed |", values printed as
/// json.dumps prints them.
std::string observation_table(const Case& c, const RunOutcome& run);

}  // namespace failmap
