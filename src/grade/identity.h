// What a recorded grading depends on besides the case, the source and the
// options (schema/GRADING.md "Recording"): the Python interpreter the sandbox
// runs candidates with, and the failmap build that judged them. Part of the
// record's key, so a grading made by another interpreter or another build is
// graded anew, never recalled.
#pragma once

#include <string>

#include "core/result.h"

namespace failmap {

/// The sandbox's interpreter: "PATH sha256:HEX", PATH the resolved path of
/// /usr/bin/python3 (e.g. /usr/bin/python3.11, which names its version) and
/// HEX the SHA-256 of that file. Computed once per process. Errors: the
/// interpreter is missing or unreadable.
Result<std::string> interpreter_identity();

/// This failmap build: "gnu-build-id:HEX" from the executable's GNU build-id
/// note (the linker's hash of the linked program, Debian's default), else
/// "sha256:HEX" of /proc/self/exe. Computed once per process.
Result<std::string> build_identity();

}  // namespace failmap
