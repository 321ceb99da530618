// Whole files read and hashed, for every reader of untrusted input: a path
// that names a folder or a pipe is refused up front, a file read whole is
// capped (encoding/limits.h), and a file hashed is read in constant memory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/result.h"
#include "encoding/limits.h"

namespace failmap {

/// Refuses an input path that names a folder: "PATH: a folder, not a file",
/// where opening it would succeed and the first read fail as a bare "read
/// error". A path that does not exist passes (opening it names errno).
/// `read_file`, `hash_file` and `JsonlLines::open` call it.
Status check_not_a_folder(const std::filesystem::path& path);

/// Refuses an input path that is not a regular file (a folder, a pipe such as
/// /dev/stdin, a device): "PATH: a pipe, not a regular file (WHY)". For
/// commands that read their input more than once; `why` says so (for
/// example "grade reads the predictions twice: a check, then grading").
Status check_regular_file(const std::filesystem::path& path, const std::string& why);

/// Reads a whole file into a string; an Error names the path and errno text.
/// A file longer than `max_bytes` (encoding/limits.h; pass SIZE_MAX for files that
/// are legitimately huge, e.g. listings) is refused with "PATH: larger than
/// the 16 MiB limit" after reading at most max_bytes + 1 bytes of it.
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes = k_max_file_bytes);

/// SHA-256 hex of the file at `path`, read 64 KiB at a time (any size, in
/// constant memory). Input errors "PATH: cannot open: REASON" and
/// "PATH: read error".
Result<std::string> hash_file(const std::filesystem::path& path);

}  // namespace failmap
