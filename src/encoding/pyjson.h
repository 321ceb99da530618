// Python-compatible JSON writer: the bytes CPython 3's
// `json.dumps(obj, ensure_ascii=False)` prints (Lib/json/encoder.py):
//   separators ", " and ": "; True/False/None as true/false/null;
//   floats by float.__repr__ (shortest round trip; ".0" on integral values;
//   exponent form "1e+16"/"1e-05" when the decimal exponent is < -4 or >= 16);
//   NaN, Infinity, -Infinity spelled so (Python's allow_nan default);
//   strings raw UTF-8 except '"' '\\' and control characters < 0x20, escaped
//   as \" \\ \n \r \t \b \f or \u00XX (lower-case hex).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/value.h"

namespace failmap {

/// Separators between list items: Python's default ", ", or "," as
/// json.dumps(..., separators=(",", ":")) and dump_compact (encoding/json.h) print.
enum class JsonSeparators { Python, Compact };

/// Appends json.dumps(v, ensure_ascii=False) to `out` (with
/// JsonSeparators::Compact: separators=(",", ":") as well).
void append_python_json(std::string& out, const Value& v, JsonSeparators separators = JsonSeparators::Python);
/// json.dumps(v, ensure_ascii=False).
std::string python_json(const Value& v);
/// Appends a JSON string literal of UTF-8 text `s`, escaped as Python does.
void append_python_json_string(std::string& out, std::string_view s);
/// Appends `,"KEY":VALUE` — a string member of a compact object as
/// dump_compact (encoding/json.h) prints it; `key` must need no escape (ASCII
/// letters, digits, '_').
void append_compact_member(std::string& out, std::string_view key, std::string_view value);
/// Python's repr(float) (also json.dumps for finite floats): "0.1", "4.0",
/// "-0.0", "1e+16", "1e-05", "nan", "inf", "-inf".
std::string python_float_repr(double d);
/// Python's repr(str) for a check label in the reference script: single
/// quotes unless the text holds ' and no ", escapes as CPython's unicode_repr
/// for \\, the quote, \n \r \t and other non-printable ASCII as \xNN.
std::string python_str_repr(std::string_view s);
/// json.loads for text that json.dumps printed — the reader of
/// python_json's output, for the observation documents of results lines
/// (schema/GRADING.md): null, true, false, integers (within int64), floats
/// (JSON numbers with a fraction or exponent, and NaN, Infinity, -Infinity
/// as Python spells them), strings (JSON escapes, valid UTF-8, no raw
/// control characters), lists, and objects with string keys as dicts in
/// their order (a repeated key is refused: json.dumps never prints one).
/// Whitespace between tokens as JSON allows. Limits as every reader of
/// untrusted input (src/encoding/limits.h): nesting at most k_max_json_depth,
/// at most `max_elements` elements in all (an observation document holds
/// one returned value per check: its reader passes its own bound). An
/// Error names `where` and the byte offset of what is wrong.
Result<Value> parse_python_json(std::string_view text, const std::string& where,
                                std::size_t max_elements = k_max_value_elements);

/// Python's repr(v) for values in source text: ints, floats (repr), True,
/// False, None, lists "[1, 2]", str via python_str_repr.
std::string python_repr(const Value& v);

}  // namespace failmap
