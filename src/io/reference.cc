#include "io/reference.h"

#include "encoding/pyjson.h"

namespace failmap {

std::string reference_script(const Case& c, const Mechanism& m, StrategyKind strategy) {
  std::string out;
  out += k_reference_docstring;
  out += "\nimport json\n";
  for (const auto& [name, value] : c.params) out += name + " = " + python_repr(value) + "\n";
  out += "observations = []\n";
  out += m.strategy(strategy).python;
  out +=
      "def check(label, actual, expected):\n"
      "    observations.append({\"check\": label, \"actual\": actual, \"expected\": expected, \"passed\": actual == "
      "expected})\n";
  for (const FixtureTemplate& t : m.fixtures) {
    out +=
        "check(" + python_str_repr(t.label) + ",solve(" + std::string(t.args) + ")," + std::string(t.expected) + ")\n";
  }
  out +=
      "print(json.dumps({\"observations\": observations, \"passed\": all(x[\"passed\"] for x in observations)}, "
      "ensure_ascii=False))\n"
      "raise SystemExit(0 if all(x[\"passed\"] for x in observations) else 1)\n";
  return out;
}

}  // namespace failmap
