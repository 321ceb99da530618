// Reading a candidate's report (the child's bytes, src/grade/driver.py's
// header gives the grammar) into what each fixture call did.
//
// The report is written by the candidate's own process, so it is untrusted
// input like any other: it may be cut short, hold extra or repeated records,
// claim calls it never made, nest values past any limit or be binary noise.
// read_report accepts exactly the grammar, in call order, within
// src/encoding/limits.h's caps, and says what is wrong otherwise. A report that
// lies consistently is only a candidate returning other values, which the
// comparison failmap makes (never the candidate) then judges.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/value.h"

namespace failmap {

/// What one call of `solve` did.
struct CallResult {
  enum class Kind {
    Returned,  ///< `value` is what it returned (an exact JSON type)
    Raised,    ///< `text` is "TypeName: message" of the exception it raised
    Refused,   ///< it returned a value failmap does not compare; `text` says why
    Missing,   ///< the report ends before this call (the process ended, or an error stopped it)
  };
  Kind kind = Kind::Missing;
  Value value;
  std::string text;
};

/// Why a candidate as a whole could not be graded check by check
/// (schema/GRADING.md "Errors").
struct GradeError {
  /// "syntax" | "import" | "timeout" | "memory" | "exception" | "output" | "sandbox".
  std::string kind;
  std::string message;
};

/// A report read back: one CallResult per call made (in call order), and
/// the error that stopped the candidate, if any.
struct CandidateReport {
  std::vector<CallResult> calls;
  std::optional<GradeError> error;
  bool done = false;  ///< the `D` record: every call was made
  /// The CPU time (user + system, seconds) the process used; none when the
  /// sandbox failed or the report was read back from a results line. It
  /// varies from run to run, so it goes to cpu.jsonl, never to a results line.
  std::optional<double> cpu_seconds;
};

/// The most elements one returned value may have, nested ones included, and
/// one list of it: the driver refuses a larger value by name (a `T` record)
/// and read_report refuses a report that holds one. Read back, an element
/// costs failmap one Value (40 bytes on x86-64) besides its report bytes, so
/// the cap bounds a report's values to about 40 MB whatever their encoding
/// (1 to 24 bytes of report each); the report's bytes are released before
/// the observation document is built (judge).
inline constexpr std::size_t k_max_report_elements = 1'000'000;

/// Reads `bytes`, a report of a candidate given `calls` calls. Never fails:
/// a report that breaks the grammar gives `error` of kind "output" naming
/// the byte where it broke, with the calls read before it kept; calls it
/// does not reach are Missing. Values are limited to nesting depth 64, at
/// most k_max_report_elements elements, ints within int64, strings of valid
/// UTF-8. An `I` record (a module outside the standard library) is an error
/// of kind "import".
CandidateReport read_report(std::string_view bytes, std::size_t calls);

}  // namespace failmap
