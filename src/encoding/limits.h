// Caps on untrusted input: every file failmap reads may come
// from elsewhere, so each reader bounds the memory and stack one input can
// claim and refuses anything beyond with one error "PATH:LINE: what" (or
// "PATH: what" for a whole-file cap), exit status 2, archive unchanged.
//
// The caps in one place, with their values and why:
//
//   k_max_line_bytes   1 MiB  one JSON Lines line (bundle mechanisms/cases/runs
//                             .jsonl, split folders' claims, `split --input`
//                             listings) and one line of a published page. The
//                             largest real record (a case with its fixtures and
//                             published runs) is a few KiB; 1 MiB is ~200x that.
//                             Lines are read in bounded chunks, so a 10 GiB
//                             line without '\n' never sits in memory.
//   k_max_result_line_bytes 256 MiB  one line of a grading's results.jsonl
//                             (and of its cpu.jsonl), which holds the
//                             candidate's observation: a report of at most
//                             16 MiB (grade/sandbox.h output_bytes) spelt as
//                             Python's json.dumps spells it (a control
//                             character: 6 bytes) and escaped again as a JSON
//                             string (7), about 112 MiB at most; every reader
//                             of a grading reads what grade can write.
//   k_max_file_bytes  16 MiB  a file read whole before parsing: case files,
//                             bundle manifest, SHA256SUMS, signatures, pages.
//                             The largest is a case file of a few KiB; a 16 MiB
//                             file parses in well under a second.
//   k_max_json_depth     64   (encoding/json.h) arrays/objects nested in one JSON
//                             text; no record needs more than 4. Also bounds
//                             the recursive RapidJSON pass over listings.
//   k_max_expression_bytes / k_max_expression_depth  (core/expr.h) 1 MiB / 64,
//                             fixture expressions.
//   k_max_list_length  1,000,000  (core/value.h) elements of one list value,
//                             read from JSON or built by `+`/`*`.
//   k_max_value_elements  4,000,000  (core/value.h) list elements in all,
//                             nested ones included, of one value or argument
//                             list a fixture expression builds (`[[0]*999]*999`
//                             multiplies; 2x the largest real fixture).
//   numbers                   integers outside int64 and float literals that
//                             overflow a double are refused (encoding/json.h), never
//                             rounded.
//
// Listings for `split --input` are read whole but are not under
// k_max_file_bytes (they hold millions of lines); they are capped per line and
// at k_max_listing_lines (16,777,216: 16x the 1M-item bench listing) instead,
// both checked while reading, so an endless stream (`yes`, /dev/zero on
// stdin) is refused at its first bad line or at the line cap.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace failmap {

inline constexpr std::size_t k_max_line_bytes = std::size_t{1} << 20;
inline constexpr std::size_t k_max_result_line_bytes = std::size_t{256} << 20;
inline constexpr std::size_t k_max_file_bytes = std::size_t{16} << 20;
inline constexpr std::size_t k_max_listing_lines = std::size_t{1} << 24;

/// Where a user reads these limits, named in parentheses by every error that
/// refuses an input beyond one (a user has the manual, not the source tree).
inline constexpr const char* k_limits_page = "docs/README.md, \"Limits on untrusted input\"";

/// "1 MiB", "16 MiB": how errors spell a byte cap.
std::string byte_cap_text(std::size_t bytes);

/// "line longer than the 1 MiB limit (docs/README.md, "Limits on
/// untrusted input")": what every reader
/// capped per line (JSON Lines, listings, pages) says after "PATH:LINE: ".
std::string line_too_long_text(std::size_t max = k_max_line_bytes);

/// Result of reading one line with read_line_capped.
enum class LineRead {
  Line,     ///< `line` holds the next line without its '\n'
  TooLong,  ///< the line exceeded `max` bytes; it was skipped up to its '\n'
  End,      ///< no more lines (or a read error: check in.bad())
};

/// Reads one '\n'-terminated line (the last may lack it) of at most `max`
/// bytes (the '\n' not counted) into `line`, in bounded chunks: a longer
/// line is consumed and dropped, never held whole in memory.
LineRead read_line_capped(std::istream& in, std::string& line, std::size_t max = k_max_line_bytes);

}  // namespace failmap
