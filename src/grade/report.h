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
  /// Where a Returned value read from a report lies in CandidateReport::bytes.
  struct Encoded {
    std::size_t begin = 0;     ///< offset of its first byte
    std::size_t size = 0;      ///< its bytes
    std::size_t elements = 0;  ///< the values it holds, counted as the driver counts them (value_elements)
  };
  Kind kind = Kind::Missing;
  /// Returned, when the value was given whole (a results line read back);
  /// none when it is `encoded`: read it with CandidateReport::returned.
  Value value;
  /// Returned, read from a report: kept as its bytes, never built whole
  /// unless asked for (a value of a million elements costs its report
  /// bytes, not 40 bytes per element).
  std::optional<Encoded> encoded;
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
  /// The report as read (read_report); the `encoded` values lie in it.
  std::string bytes;

  /// What call i returned (Kind::Returned), built whole.
  Value returned(std::size_t i) const;
  /// python_equal(returned(i), expected) for a Returned call i, false for
  /// any other. An encoded value is built only when it holds as many
  /// elements as `expected` (equal values do), so never larger than the
  /// case's own expected value.
  bool returned_equals(std::size_t i, const Value& expected) const;
  /// Appends python_json(returned(i)) (encoding/pyjson.h) to `out`, reading
  /// an encoded value straight from the report's bytes.
  void append_returned_json(std::string& out, std::size_t i) const;
};

/// The values `v` holds as the driver and read_report count them: every
/// value once, a list or dict as one plus its elements, and a dict's keys.
std::size_t value_elements(const Value& v);

/// The most elements one returned value may have, nested ones included, and
/// one list of it: the driver refuses a larger value by name (a `T` record)
/// and read_report refuses a report that holds one. failmap keeps a report's
/// values as the report's bytes (CallResult::encoded) and writes the
/// observation document from them: one report costs failmap about its own
/// size, plus the document and results line written from it, rather than a
/// Value (40 bytes on x86-64) per element.
inline constexpr std::size_t k_max_report_elements = 1'000'000;

/// Reads `bytes`, a report of a candidate given `calls` calls. Never fails:
/// a report that breaks the grammar gives `error` of kind "output" naming
/// the byte where it broke, with the calls read before it kept; calls it
/// does not reach are Missing. Values are limited to nesting depth 64, at
/// most k_max_report_elements elements, ints within int64, strings of valid
/// UTF-8. An `I` record (a module outside the standard library) is an error
/// of kind "import". The report keeps `bytes`; returned values are checked
/// and left in them (CallResult::encoded).
CandidateReport read_report(std::string bytes, std::size_t calls);

}  // namespace failmap
