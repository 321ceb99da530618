// Text rules every reader of untrusted files shares (schema/BUNDLE.md
// "Byte-order marks"): the one byte-order mark a file may start with, and how
// an error message quotes what it found so that failmap's messages are always
// valid UTF-8 and never hold an invisible U+FEFF.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/result.h"

namespace failmap {

/// The UTF-8 byte-order mark, U+FEFF encoded (EF BB BF).
inline constexpr std::string_view k_utf8_bom = "\xEF\xBB\xBF";
/// What every reader says of a byte-order mark it refuses (at the start of a
/// line other than the first, or in a text that is not a file), after
/// "WHERE:LINE[:COL]: ".
inline constexpr std::string_view k_bom_refused =
    "a UTF-8 byte-order mark (U+FEFF), which only the very start of a file may hold (schema/BUNDLE.md "
    "\"Byte-order marks\")";

/// What skip_file_bom says of a second BOM at the start of a file.
inline constexpr std::string_view k_second_bom =
    "a second UTF-8 byte-order mark (U+FEFF) at the start of the file: only one is skipped (schema/BUNDLE.md "
    "\"Byte-order marks\")";

/// The byte-order-mark rule of every reader of files (schema/BUNDLE.md
/// "Byte-order marks"): one UTF-8 BOM at the very start of a file is skipped.
/// Returns `text` without it; a second one right after it is the Input error
/// "WHERE:1: " + k_second_bom. BOMs elsewhere are left for the reader, which
/// refuses one at the start of any later line with k_bom_refused.
Result<std::string_view> skip_file_bom(std::string_view text, const std::string& where);

/// `s` as an error message quotes what it found: a JSON string literal as
/// Python's json.dumps(ensure_ascii=False) writes it (control characters
/// escaped), but U+FEFF written as \ufeff (a byte-order mark is invisible)
/// and each byte that is not part of well-formed UTF-8 as \xNN, so the
/// message stays valid UTF-8. Shows `s` from byte `from` (moved back to the
/// start of its character), at most `max_bytes` of it, cut at a character
/// boundary; "..." before the opening quote when `from` > 0 and after the
/// closing one when bytes were left out at the end.
std::string quote_excerpt(std::string_view s, std::size_t max_bytes, std::size_t from = 0);

/// The length (1-4) of the well-formed UTF-8 character at s[i], or 0 when
/// the bytes there are not one (a stray continuation byte, an overlong, a
/// surrogate, beyond U+10FFFF, cut short by the end of `s`).
std::size_t utf8_char_length(std::string_view s, std::size_t i);

/// Offset of the first byte of `s` that is not part of well-formed UTF-8,
/// or std::string_view::npos.
std::size_t first_invalid_utf8(std::string_view s);

/// (line, column) of byte `offset` of `text`, both from 1; the column counts
/// bytes.
std::pair<std::size_t, std::size_t> text_line_col(std::string_view text, std::size_t offset);

/// Strips a leading UTF-8 BOM (EF BB BF), if any. Readers of files use
/// skip_file_bom instead, which also refuses a second one.
std::string_view strip_bom(std::string_view text);

/// True if `s` is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace failmap
