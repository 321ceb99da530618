// failmap reference CASE --strategy S
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "io/reference.h"

namespace failmap::cli {
namespace {

struct ReferenceOptions {
  std::string id;
  std::string strategy;
};

int run_reference(Context& ctx, const ReferenceOptions& o) {
  auto s = parse_strategy(o.strategy);
  if (!s) return report(s.error());
  if (*s == StrategyKind::Repaired && !k_build_has_repairs) return report(no_repairs_error("--strategy repaired"));
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto c = require_case(*archive, o.id);
  if (!c) return report(c.error());
  const Mechanism* m = find_mechanism(c->mechanism);
  if (!m) return report(input_error("case " + c->id + ": unknown mechanism '" + c->mechanism + "'"));
  std::cout << reference_script(*c, *m, *s);
  return k_exit_ok;
}

}  // namespace

void setup_reference(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ReferenceOptions>();
  sub.add_option("case", o->id, "case id, e.g. FA-98921")->required();
  sub.add_option("-s,--strategy", o->strategy, "broken, unsuccessful or repaired")->required();
  sub.callback([&ctx, o] { ctx.exit_status = run_reference(ctx, *o); });
}

}  // namespace failmap::cli
