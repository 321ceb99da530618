// libFuzzer target: RFC 8785 canonical JSON (src/encoding/jcs.h). Canonicalizing
// the parse of a canonical form must give the same bytes (idempotence).
// The canonical form is re-read as I-JSON (RFC 7493: every number a double;
// nlohmann's parser with each number converted), not with parse_json_strict:
// JCS writes every number as a double in ECMAScript notation, so the float
// 1e20 becomes the integer literal 100000000000000000000, which the strict
// reader refuses by policy (integers beyond int64 are never rounded), and
// the float 1e19 becomes 10000000000000000000, an integer beyond 2^53 that
// canonical_json refuses when it is given as an integer. First 60 s pass:
// "1e20" tripped the old strict re-read (tests/unit/test_jcs.cc keeps it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "encoding/jcs.h"
#include "encoding/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = failmap::parse_json_strict(text, "fuzz");
  if (!j) return 0;
  auto c = failmap::canonical_json(*j);
  if (!c) return 0;
  const auto as_double = [](int, failmap::Json::parse_event_t event, failmap::Json& v) {
    if (event == failmap::Json::parse_event_t::value && v.is_number()) v = v.get<double>();
    return true;
  };
  const failmap::Json again = failmap::Json::parse(*c, as_double, /*allow_exceptions=*/false);
  if (again.is_discarded()) std::abort();
  auto c2 = failmap::canonical_json(again);
  if (!c2 || *c2 != *c) std::abort();
  return 0;
}
