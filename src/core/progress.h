// Progress reporting from library code without printing: long operations
// (import, run --all, ...) call a ProgressFn as they go; src/cli turns the
// calls into a bar (src/cli/progress_bar.h). An empty function means "nobody
// is watching".
#pragma once

#include <cstddef>
#include <functional>

namespace failmap {

/// Called with the number of items finished since the previous call.
using ProgressFn = std::function<void(std::size_t items_done)>;

/// Calls `fn(n)` when `fn` is set.
inline void report_progress(const ProgressFn& fn, std::size_t n) {
  if (fn) fn(n);
}

}  // namespace failmap
