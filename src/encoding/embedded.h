// Files compiled into the binary from schema/ and templates/
// (cmake/Embed.cmake): the SQL migrations, the case-file JSON Schema and the
// site's mustache templates and stylesheet (src/io/site.h).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace failmap {

/// (file name, contents) of every embedded file, sorted by name.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_files();

/// Contents of the embedded file `name` (e.g. "case.schema.json"); empty if none.
inline std::string_view embedded_file(std::string_view name) {
  for (const auto& [n, body] : embedded_files())
    if (n == name) return body;
  return {};
}

/// The driver's fork loop (src/grade/forkloop.c), a shared library built
/// with failmap, as lowercase hexadecimal text (cmake/EmbedHex.cmake): the
/// sandbox sends it to the driver with its configuration (src/grade/sandbox.h).
std::string_view fork_loop_library();

}  // namespace failmap
