#include "core/evaluate.h"

namespace failmap {

Result<RunOutcome> run_strategy(const Case& c, StrategyKind strategy) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  const Strategy& s = m->strategy(strategy);
  std::vector<Value> actuals;
  actuals.reserve(c.fixtures.size());
  for (const Fixture& f : c.fixtures) {
    auto r = s.solve(f.args);
    if (!r)
      return input_error("case " + c.id + ", strategy " + std::string(strategy_name(strategy)) + ", check '" + f.label +
                         "': " + r.error().message);
    actuals.push_back(std::move(*r));
  }
  return outcome_from_actuals(c, strategy, std::move(actuals));
}

RunOutcome outcome_from_actuals(const Case& c, StrategyKind strategy, std::vector<Value> actuals) {
  RunOutcome out;
  out.strategy = strategy;
  out.actuals = std::move(actuals);
  out.passed.reserve(out.actuals.size());
  for (std::size_t i = 0; i < out.actuals.size(); ++i) {
    bool ok = i < c.fixtures.size() && python_equal(out.actuals[i], c.fixtures[i].expected);
    out.passed.push_back(ok);
    out.all_passed = out.all_passed && ok;
  }
  return out;
}

}  // namespace failmap
