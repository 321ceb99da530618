// The runnable Python reference implementation of a case and strategy, in the
// published page's layout (seeds/000_b91ddc69b4d265ed.txt, sections 1 and 2)
// with its indentation restored. Running it with python3 prints the same bytes
// as `failmap run --format json` and exits with the same status.
#pragma once

#include <string>

#include "core/case.h"
#include "core/mechanism.h"

namespace failmap {

/// The script text, '\n' line ends, final newline included. The case must be
/// valid (validate_case); its binding is printed as `NAME = repr(value)`.
std::string reference_script(const Case& c, const Mechanism& m, StrategyKind strategy);

/// The script's fixed first line.
inline constexpr const char* k_reference_docstring =
    "\"\"\"Failure Map reference implementation. Python standard library only.\"\"\"";

}  // namespace failmap
