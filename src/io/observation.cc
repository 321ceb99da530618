#include "io/observation.h"

#include "io/pyjson.h"
#include "io/sha256.h"

namespace failmap {

std::string observation_document(const Case& c, const RunOutcome& run) {
  std::string out;
  out.reserve(64 + 96 * run.actuals.size());
  out += "{\"observations\": [";
  for (std::size_t i = 0; i < run.actuals.size(); ++i) {
    if (i) out += ", ";
    out += "{\"check\": ";
    append_python_json_string(out, c.fixtures[i].label);
    out += ", \"actual\": ";
    append_python_json(out, run.actuals[i]);
    out += ", \"expected\": ";
    append_python_json(out, c.fixtures[i].expected);
    out += ", \"passed\": ";
    out += run.passed[i] ? "true" : "false";
    out += '}';
  }
  out += "], \"passed\": ";
  out += run.all_passed ? "true" : "false";
  out += '}';
  return out;
}

std::string observation_digest(const std::string& document) { return sha256_hex(document); }

std::string observation_table(const Case& c, const RunOutcome& run) {
  std::string out = "| Boundary fixture | Actual | Expected | Outcome |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < run.actuals.size(); ++i) {
    out += "| " + c.fixtures[i].label + " | " + python_json(run.actuals[i]) + " | " + python_json(c.fixtures[i].expected) +
           " | " + (run.passed[i] ? "Passed" : "Failed") + " |\n";
  }
  return out;
}

}  // namespace failmap
