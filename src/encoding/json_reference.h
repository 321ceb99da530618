// The reference reader behind parse_json_strict (src/encoding/json.h), for the
// tests and fuzz targets that hold its fast path to it.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "encoding/json.h"

namespace failmap {

/// parse_json_strict without its fast path (RapidJSON reading into the same
/// nlohmann document): nlohmann's SAX parser alone, which decides and words
/// every refusal. parse_json_strict gives the same result for every input;
/// tests/unit/test_json_fast.cc and bench/fuzz/fuzz_json.cc hold the two equal.
Result<Json> parse_json_strict_reference(std::string_view text, const std::string& where,
                                         JsonParseError* parts = nullptr);

}  // namespace failmap
