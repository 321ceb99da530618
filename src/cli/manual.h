// The reference manual compiled into the binary: docs/*.md, one page per
// command (cmake/Embed.cmake writes generated/manual.cc at configure time).
// `failmap help COMMAND` prints a page byte for byte; scripts/md2man.py makes
// the man page failmap(1) from the same files.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.h"

namespace failmap {

/// (file name, contents) of every page of docs/, sorted by file name
/// ("run.md", "verify-bundle.md", "glossary.md", ...).
const std::vector<std::pair<std::string_view, std::string_view>>& manual_pages();

}  // namespace failmap

namespace failmap::cli {

/// The subcommands of `app`, in the order the command table added them.
std::vector<const CLI::App*> subcommands_of(const CLI::App& app);

/// The pages of the manual that are no command of `root` ("glossary"), in
/// file name order; `help` lists them after the commands and completes them.
std::vector<std::string> other_pages(const CLI::App& root);

}  // namespace failmap::cli
