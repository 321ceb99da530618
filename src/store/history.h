// What import keeps besides the current cases, as read back: a replaced
// version of a case (the case_history table). Written and read by the
// Archive members of store/history.cc; disagreements are io/page.h's type.
#pragma once

#include <string>

namespace failmap {

/// A replaced version of a case, kept by `import --replace` (the
/// `case_history` table of schema/002_history.sql).
struct HistoryEntry {
  std::string case_id;
  int version = 0;          ///< 1 for the first version replaced, then 2, ...
  std::string record;       ///< dump_compact of the member-tier case record
  std::string replaced_at;  ///< UTC time of the replacement
  std::string replaced_by;  ///< the input that replaced it (file path)
};

}  // namespace failmap
