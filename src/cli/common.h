// Helpers shared by the command files in src/cli/.
#pragma once

#include <iostream>
#include <optional>
#include <string>

#include "cli/cli.h"
#include "store/archive.h"

namespace failmap::cli {

/// Opens the archive named by --db / $FAILMAP_DB / ./failmap.db.
Result<Archive> open_archive(const Context& ctx, Archive::Mode mode);

/// Loads a case by id; an Error names the id and the archive when absent.
Result<Case> require_case(Archive& archive, const std::string& id);

/// True when stderr is a terminal and progress may be drawn.
bool stderr_is_tty();
/// True when stdout is a terminal.
bool stdout_is_tty();

}  // namespace failmap::cli
