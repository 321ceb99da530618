// Strict JSON input (RFC 8259) for every file failmap reads, and conversion
// between JSON and Python Values.
//
// Beyond RFC 8259 syntax (nlohmann_json does the parsing) the reader refuses
// what would otherwise be silently changed: duplicate keys in one object,
// integers outside int64 (never rounded to a double), numbers that overflow a
// double, nesting deeper than k_max_json_depth, a UTF-8 byte-order mark
// (files skip one at their very start first: parse_json_file below),
// invalid UTF-8, a NUL byte outside a string (nlohmann's lexer would end the
// text there). Errors name line and column; syntax errors say what was
// expected there and what was found, in failmap's words (encoding/json_syntax.h),
// never the parser's.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/value.h"

namespace failmap {

using Json = nlohmann::ordered_json;

inline constexpr int k_max_json_depth = 64;

/// Where and what a parse_json_strict error is, apart: `line` and `column`
/// (1-based, within the text; 0 when the error is about no one place, e.g. a
/// duplicate key) and `what` (the message without WHERE and position).
struct JsonParseError {
  std::size_t line = 0, column = 0;
  std::string what;
};

/// Parses one JSON text. `where` prefixes error messages (e.g. "cases/x.json"
/// or "bundle/cases.jsonl:12"); errors read "WHERE:LINE:COL: what". With
/// `parts`, an error's line, column and text are also stored there.
Result<Json> parse_json_strict(std::string_view text, const std::string& where, JsonParseError* parts = nullptr);

/// parse_json_strict of a whole file's text (case files, manifests): its one
/// leading BOM skipped first (skip_file_bom, encoding/text.h), every other refused.
Result<Json> parse_json_file(std::string_view text, const std::string& where, JsonParseError* parts = nullptr);

/// JSON -> Value: integers, floats, strings, booleans, null and arrays map to
/// their Python counterparts; objects are refused. `field` names the location
/// in errors.
Result<Value> value_from_json(const Json& j, const std::string& field);

/// A stored Python value's JSON text -> Value: integers and (nested) lists of
/// them in json.dumps spelling ("[[1, 1, 1], 2]") on a fast path, anything
/// else through parse_json_strict + value_from_json. `where` prefixes errors.
Result<Value> parse_value_text(std::string_view text, const std::string& where);
/// The byte spans of the top-level elements of a JSON array text, e.g.
/// "[[1, 2], \"a,]\", 3]" -> {"[1, 2]", "\"a,]\"", "3"} (whitespace around
/// elements trimmed). Only brackets, braces, commas and string quoting are
/// looked at — each element is left for its own parser to check. nullopt
/// when `text` is not one bracketed array with balanced nesting and closed
/// strings, or has an empty element ("[1,,2]", "[1,]").
std::optional<std::vector<std::string_view>> json_array_elements(std::string_view text);
/// parse_value_text's fast path alone: nullopt for anything but integers
/// and (nested) lists of them in json.dumps spelling. No error text is built.
std::optional<Value> parse_int_value_text(std::string_view text);
/// The same fast path for the value starting at text[*pos] (text after it
/// is left alone; *pos ends past the value), parsed into `*v`, reusing the
/// storage of its lists (no allocation when the text has the shape `*v`
/// already has). False for anything parse_int_value_text refuses, `*v`
/// then unspecified.
bool parse_int_value_into(std::string_view text, std::size_t* pos, Value* v);
/// As parse_int_value_into for the elements of a list whose '[' is just
/// before text[*pos], into `*items`, up to and past its closing ']'.
bool parse_int_list_items(std::string_view text, std::size_t* pos, Value::List* items);

/// A JSON value as an error message shows what it found: "an object", "an
/// array", "the string \"x\"", "the number 1.5", "true", "null"; strings and
/// numbers as JSON text; a string quoted by quote_excerpt (encoding/text.h: at most
/// 57 bytes of it shown, cut at a character boundary).
std::string describe_json_value(const Json& v);
/// describe_json_value of a stored JSON text, or, when it is not one JSON
/// value, "text that is not JSON, " and the text quoted as above.
std::string describe_json_text(std::string_view text);

/// Value -> JSON (floats stay floats, ints stay ints). NaN and infinities have
/// no JSON spelling: they become strings "NaN"/"Infinity"/"-Infinity" only in
/// Python-JSON text, so callers storing values use python_json() instead.
Json value_to_json(const Value& v);

/// Serializes `j` as compact JSON in Python's json.dumps style with
/// separators (",", ":") — no spaces — floats via Python's repr, keys in the
/// object's insertion order, non-ASCII raw. Deterministic on every machine;
/// used for JSONL records and manifests.
std::string dump_compact(const Json& j);

}  // namespace failmap
