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

}  // namespace failmap
