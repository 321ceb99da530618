// The rule for model names (schema/GRADING.md "predictions.jsonl"): a name
// is compared, counted and shown in Unicode Normalization Form C (UAX #15,
// https://unicode.org/reports/tr15/), so that "é" typed as one code point or
// as "e" and a combining accent is one model, and it may hold nothing a
// reader cannot see: no control, format (general category Cc, Cf), line or
// paragraph separator, unassigned, private-use or default-ignorable code
// point (UCD DerivedCoreProperties.txt), no white space but U+0020, and no
// U+0020 at either end. Two names that pass the rule and differ show
// differently (up to look-alike letters of different scripts, which stay
// apart).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace failmap {

/// At most this many bytes, before and after normalisation.
inline constexpr std::size_t k_model_name_max_bytes = 200;

/// `name` (valid UTF-8) in NFC, or an Input error saying what is wrong with
/// it, without a place (the caller names file, line and field): empty, over
/// k_model_name_max_bytes, or the first refused character as "U+XXXX NAME
/// (what it is) at character N". Uses ICU (Debian libicu-dev).
Result<std::string> normalize_model_name(std::string_view name);

}  // namespace failmap
