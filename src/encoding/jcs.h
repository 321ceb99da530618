// RFC 8785 — JSON Canonicalization Scheme (JCS): the one byte form of a JSON
// value that failmap hashes (schema/DIGESTS.md).
//
//   - no whitespace; literals null, true, false;
//   - strings: UTF-8, escaping only '"', '\\' and the controls U+0000..U+001F
//     (\b \t \n \f \r, otherwise \u00xx in lower-case hex); everything else,
//     U+007F and U+2028 included, raw;
//   - numbers: IEEE 754 doubles serialized as ECMAScript's
//     Number.prototype.toString (ECMA-262 §7.1.12.1): the shortest digits
//     that round-trip, plain notation for 1e-7 < |x| < 1e21 ("0.000001",
//     "1e-7", "1e+21"), -0 as "0";
//   - object members sorted by their keys' UTF-16 code units (so a key
//     outside the BMP sorts by its surrogates, before U+E000..U+FFFF), arrays
//     in order.
//
// I-JSON (RFC 7493) numbers are doubles. An integer whose magnitude exceeds
// 2^53 has no exact double, and rounding it would give two different values
// one canonical form (a digest collision), so canonicalization refuses it
// with an error naming the field. NaN and infinities (not JSON) are refused
// the same way.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "encoding/json.h"

namespace failmap {

/// Largest integer magnitude JCS accepts: 2^53.
inline constexpr std::int64_t k_jcs_max_exact_integer = std::int64_t{1} << 53;

/// The RFC 8785 canonical form of `j`. Errors: "FIELD: integer N is outside
/// ±2^53, ...", "FIELD: NaN/Infinity ...", "FIELD: invalid UTF-8", where
/// FIELD is the JSON path from the root ("$", "$.fixtures[0].args").
Result<std::string> canonical_json(const Json& j);

/// Appends the canonical form of `j` to `out`; as canonical_json. On error
/// `out` holds a partial text.
Status append_canonical_json(std::string& out, const Json& j);

/// ECMAScript Number.prototype.toString of a finite double:
/// 0 and -0 → "0", 1e21 → "1e+21", 1e-7 → "1e-7", 5e-324 → "5e-324",
/// 0.000001 → "0.000001", 123.0 → "123".
std::string ecmascript_number(double d);

/// Strict weak order of UTF-8 strings by their UTF-16 code units (RFC 8785
/// §3.2.3). Both must be valid UTF-8.
bool utf16_less(std::string_view a, std::string_view b);

/// Appends `s` (valid UTF-8) as an RFC 8785 string literal, quotes included.
void append_canonical_string(std::string& out, std::string_view s);

}  // namespace failmap
