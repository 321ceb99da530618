// failmap reference CASE --strategy S
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "cli/common.h"
#include "io/reference.h"

namespace failmap::cli {
namespace {

struct ReferenceOptions {
  std::string id;
  std::optional<std::string> strategy;  ///< required; checked after the case (run_reference)
};

// The case is looked up first and the strategy checked after, every problem
// reported (an unknown case and a missing --strategy are two lines, the case
// first: CLI11 requiring --strategy would hide that the case is unknown).
int run_reference(Context& ctx, const ReferenceOptions& o) {
  std::vector<std::string> problems;
  std::optional<Case> c;
  if (auto archive = open_archive(ctx, Archive::Mode::ReadOnly); !archive) {
    problems.push_back(archive.error().message);
  } else if (auto found = require_case(*archive, o.id); !found) {
    problems.push_back(found.error().message);
  } else {
    c = std::move(*found);
  }
  std::optional<StrategyKind> strategy;
  if (!o.strategy) {
    problems.push_back("--strategy is required (broken, unsuccessful or repaired)");
  } else if (auto s = parse_strategy(*o.strategy); !s) {
    problems.push_back(s.error().message);
  } else if (*s == StrategyKind::Repaired && !k_build_has_repairs) {
    problems.push_back(no_repairs_error("--strategy repaired").message);
  } else {
    strategy = *s;
  }
  if (!problems.empty()) return report_all(problems);
  const Mechanism* m = find_mechanism(c->mechanism);
  if (!m) return report(input_error("case " + c->id + ": unknown mechanism '" + c->mechanism + "'"));
  std::cout << reference_script(*c, *m, *strategy);
  return k_exit_ok;
}

}  // namespace

void setup_reference(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ReferenceOptions>();
  sub.add_option("case", o->id, "case id, e.g. FA-98921")->required();
  sub.add_option("-s,--strategy", o->strategy, "broken, unsuccessful or repaired (required)");
  sub.callback([&ctx, o] { ctx.exit_status = run_reference(ctx, *o); });
}

}  // namespace failmap::cli
