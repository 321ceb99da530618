// libFuzzer target: the body reader of `failmap serve`'s POST /v1/grade
// (src/serve/request.h). The first byte picks the format (even: a JSON
// array, odd: JSON Lines), the rest is the body. Invariants: a refused body
// has status 400, 413 or 422 and a message; an accepted one holds 1 to 64
// predictions, each with a valid case id, a model of 1-200 bytes, a sample in
// range, and (given as `completion`) a recorded extraction.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/case.h"
#include "serve/request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using failmap::serve::BatchFormat;
  const BatchFormat format = data[0] % 2 ? BatchFormat::JsonLines : BatchFormat::JsonArray;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  failmap::serve::GradeRequest r = failmap::serve::read_grade_request(body, format, 64);
  if (r.problem) {
    const int s = r.problem->status;
    if ((s != 400 && s != 413 && s != 422) || r.problem->message.empty()) __builtin_trap();
    return 0;
  }
  if (r.predictions.empty() || r.predictions.size() > 64) __builtin_trap();
  for (const failmap::Prediction& p : r.predictions) {
    if (!failmap::valid_case_id(p.case_id) || p.model.empty() || p.model.size() > 200 || p.sample < 0) __builtin_trap();
    if (p.completion.has_value() != p.extraction.has_value()) __builtin_trap();
  }
  return 0;
}
