// What the read-only routes of `failmap serve` say of mechanisms and cases
// (schema/SERVE.md): the same objects as `failmap mechanisms --json` and
// `failmap list --json` print, one each.
#pragma once

#include <cstdint>

#include "core/mechanism.h"
#include "encoding/json.h"
#include "store/archive.h"

namespace failmap::serve {

/// A compiled mechanism: id, title, source (null: none), evaluation_group,
/// parameters [{name, minimum, maximum (null: none declared), default}],
/// checks, repair_compiled, and `cases` (how many the archive holds).
Json mechanism_json(const Mechanism& m, std::int64_t cases);

/// A case of the archive's listing: id, mechanism, variant, title,
/// case_tier, params (the binding as JSON values), runs. A stored binding
/// that does not decode is given as its stored text under `params`.
Json case_summary_json(const CaseSummary& s);

}  // namespace failmap::serve
