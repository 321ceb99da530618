#include "core/evaluate.h"

namespace failmap {

Result<RunOutcome> run_strategy(const Case& c, StrategyKind strategy) {
  RunOutcome out;
  FAILMAP_TRY(run_strategy(c, strategy, &out));
  return out;
}

Result<const Mechanism*> case_mechanism(const Case& c) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  return m;
}

Status run_strategy(const Case& c, StrategyKind strategy, RunOutcome* out) {
  FAILMAP_TRY_ASSIGN(auto m, case_mechanism(c));
  return run_strategy(c, *m, strategy, out);
}

Status run_strategy(const Case& c, const Mechanism& mechanism, StrategyKind strategy, RunOutcome* out) {
  const Strategy& s = mechanism.strategy(strategy);
  if (!s.solve) return no_repairs_error("case " + c.id + ", strategy " + std::string(strategy_name(strategy)));
  out->strategy = strategy;
  // Sized up front and assigned in place: the values of the previous run
  // (ints, for most) are overwritten rather than destroyed and rebuilt.
  out->actuals.resize(c.fixtures.size());
  out->passed.resize(c.fixtures.size());
  out->all_passed = true;
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    const Fixture& f = c.fixtures[i];
    auto r = s.call(f.args);
    if (!r)
      return input_error("case " + c.id + ", strategy " + std::string(strategy_name(strategy)) + ", check '" + f.label +
                         "': " + r.error().message);
    // Int results (most) compared and stored without visiting the variants.
    Value& actual = out->actuals[i];
    bool ok;
    if (r->is_int()) {
      ok = f.expected.is_int() ? r->as_int() == f.expected.as_int() : python_equal(*r, f.expected);
      actual.set_int(r->as_int());
    } else {
      ok = python_equal(*r, f.expected);
      actual = std::move(*r);
    }
    out->passed[i] = ok;
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
