// libFuzzer target: the strict JSON reader (its RapidJSON fast path held
// to the reference reader) and the case-file reader
// (src/encoding/json.h, src/io/case_file.h), plus the Python JSON writer round
// trip: for every finite Value read, python_json() parsed back gives the
// same Value (same kinds, same numbers, same text). The integer-list fast
// path of stored values (parse_int_value_text, what run --all and verify
// read fixtures with) is held to the strict reader too: any text it accepts
// reads, strictly, as the same value. The syntax scanner that words syntax
// errors (src/encoding/json_syntax.h) is held to nlohmann's acceptor: it finds an
// error exactly when nlohmann refuses the text (texts nlohmann reads
// otherwise than RFC 8259 left out: a NUL byte, which its lexer takes for
// the end; a leading BOM, which it skips; invalid UTF-8, refused before; a
// number overflow, no syntax error).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "encoding/json.h"
#include "encoding/json_reference.h"
#include "encoding/json_syntax.h"
#include "encoding/pyjson.h"
#include "encoding/text.h"
#include "io/case_file.h"

namespace {

bool finite(const failmap::Value& v) {
  if (v.is_float()) return std::isfinite(v.as_float());
  if (v.is_list())
    for (const auto& x : v.as_list())
      if (!finite(x)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = failmap::parse_json_strict(text, "fuzz");
  if (auto fast = failmap::parse_int_value_text(text)) {
    if (!j) std::abort();
    auto strict = failmap::value_from_json(*j, "fuzz");
    if (!strict || !strict->identical(*fast)) std::abort();
  }
  if (text.find('\0') == std::string_view::npos && !text.starts_with(failmap::k_utf8_bom) &&
      failmap::valid_utf8(text) && text.find_first_not_of(" \t\n\r") != std::string_view::npos) {
    bool nlohmann_accepts = failmap::Json::accept(text);
    auto syntax = failmap::find_json_syntax_error(text);
    bool overflow =
        !nlohmann_accepts && !j && j.error().message.find("beyond the range of a 64-bit float") != std::string::npos;
    if (!overflow && nlohmann_accepts == syntax.has_value()) std::abort();
    if (syntax && syntax->offset > text.size()) std::abort();
  }
  // The fast path (RapidJSON) and the reference reader agree on every input.
  auto reference = failmap::parse_json_strict_reference(text, "fuzz");
  if (j.ok() != reference.ok()) std::abort();
  if (j.ok() ? j->dump() != reference->dump() : j.error().message != reference.error().message) std::abort();
  if (!j) return 0;
  failmap::Case c;
  std::vector<std::string> errors;
  (void)failmap::case_from_json(*j, "fuzz", &c, &errors);
  auto v = failmap::value_from_json(*j, "fuzz");
  if (!v || !finite(*v)) return 0;
  std::string written = failmap::python_json(*v);
  auto back = failmap::parse_json_strict(written, "round trip");
  if (!back) std::abort();
  auto v2 = failmap::value_from_json(*back, "round trip");
  if (!v2 || failmap::python_json(*v2) != written) std::abort();
  return 0;
}
