// libFuzzer target: RFC 8785 canonical JSON (src/io/jcs.h). Canonicalizing
// the parse of a canonical form must give the same bytes (idempotence).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "io/jcs.h"
#include "io/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = failmap::parse_json_strict(text, "fuzz");
  if (!j) return 0;
  auto c = failmap::canonical_json(*j);
  if (!c) return 0;
  auto again = failmap::parse_json_strict(*c, "canonical");
  if (!again) std::abort();
  auto c2 = failmap::canonical_json(*again);
  if (!c2 || *c2 != *c) std::abort();
  return 0;
}
