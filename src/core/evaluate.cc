#include "core/evaluate.h"

namespace failmap {

Result<RunOutcome> run_strategy(const Case& c, StrategyKind strategy) {
  RunOutcome out;
  if (auto s = run_strategy(c, strategy, &out); !s) return s.error();
  return out;
}

Status run_strategy(const Case& c, StrategyKind strategy, RunOutcome* out) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  const Strategy& s = m->strategy(strategy);
  out->strategy = strategy;
  out->actuals.clear();
  out->passed.clear();
  out->all_passed = true;
  for (const Fixture& f : c.fixtures) {
    auto r = s.solve(f.args);
    if (!r)
      return input_error("case " + c.id + ", strategy " + std::string(strategy_name(strategy)) + ", check '" + f.label +
                         "': " + r.error().message);
    bool ok = python_equal(*r, f.expected);
    out->actuals.push_back(std::move(*r));
    out->passed.push_back(ok);
    out->all_passed = out->all_passed && ok;
  }
  return ok_status();
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
