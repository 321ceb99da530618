// Control characters shown as text, for output that must not carry them raw:
// a terminal (src/cli terminal_safe) or an HTML page (src/io/site.h).
#pragma once

#include <string>
#include <string_view>

namespace failmap {

/// `text` with its control characters (C0 except tab, DEL, and the C1 range
/// U+0080-U+009F) as "\xNN" or "\u00NN" (lower-case hex), a byte that
/// starts no UTF-8 character as "\xNN", U+FEFF (invisible) as "\ufeff" and
/// the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
/// U+2066-U+2069, which reorder the text around them: "Trojan Source",
/// CVE-2021-42574) as "\u202e", so the result is always valid UTF-8 and reads
/// in the order it is stored. `keep_newlines`: '\n' passes too.
std::string escape_control_characters(std::string_view text, bool keep_newlines);

}  // namespace failmap
