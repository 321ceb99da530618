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

/// The most threads any --jobs accepts (each holds batches in flight).
inline constexpr unsigned k_max_jobs = 256;
/// Checks a `--jobs` value before it is converted: a whole number of threads
/// from 1 to k_max_jobs, else "expected a whole number of threads from 1 to
/// 256, got 'TEXT'" (the same words for every command that takes --jobs).
CLI::Validator jobs_validator();

}  // namespace failmap::cli
