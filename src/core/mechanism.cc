#include "core/mechanism.h"

namespace failmap {

std::string_view strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::Broken:
      return "broken";
    case StrategyKind::Unsuccessful:
      return "unsuccessful";
    case StrategyKind::Repaired:
      return "repaired";
  }
  return "?";
}

Result<StrategyKind> parse_strategy(std::string_view name) {
  for (StrategyKind k : k_all_strategies)
    if (strategy_name(k) == name) return k;
  return input_error("unknown strategy '" + std::string(name) + "' (expected broken, unsuccessful or repaired)");
}

std::string_view build_name() { return k_build_has_repairs ? "full" : "open"; }

Error no_repairs_error(std::string_view what) {
  return input_error(std::string(what) +
                     ": this build of failmap has no repairs (an open build, -DFAILMAP_REPAIRS=OFF); "
                     "use a full build for anything that needs the repaired strategy");
}

}  // namespace failmap
