// Where a JSON text breaks RFC 8259 syntax, and what the error message says
// of it: what was expected there and what was found, in failmap's words.
//
// nlohmann_json parses (encoding/json.h); its own messages are a parser's ("syntax
// error while parsing object key - unexpected end of input; expected string
// literal" for a NUL byte inside a line), and its lexer takes a NUL byte
// outside a string for the end of the text, so `{"a": 1}<NUL>junk` parsed as
// `{"a": 1}`. This scanner walks the same grammar (RFC 8259 section 2-7: no
// comments, no trailing commas, strict numbers, escapes and surrogate
// pairs) and names the first byte that breaks it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace failmap {

/// The first syntax error of a JSON text: `offset` is the byte where it is
/// (what was found starts there), `what` the message without a place, e.g.
/// "expected ':' after the member name, found \"1}\"" or "expected a member
/// name in double quotes or '}', found a NUL byte (U+0000); JSON text cannot
/// hold one raw".
struct JsonSyntaxError {
  std::size_t offset = 0;
  std::string what;
};

/// What `text` holds at byte `at`, as a syntax error names what it found:
/// "the end of the text", a NUL byte, NaN and the infinities (Python's
/// json.dumps writes them, JSON has none), a byte-order mark, a control
/// character by its code point, else the next `width` bytes quoted
/// (quote_excerpt, encoding/text.h).
std::string describe_json_found(std::string_view text, std::size_t at, std::size_t width = 20);

/// The first place where `text` (UTF-8, already checked valid) is not one
/// RFC 8259 JSON value with optional whitespace (space, tab, LF, CR) around
/// it; nullopt when it is one. Syntax only: duplicate keys, number ranges and
/// nesting depth are the strict reader's (encoding/json.h). Iterative: any depth
/// of nesting takes no stack.
std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view text);

}  // namespace failmap
