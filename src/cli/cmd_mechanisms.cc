// failmap mechanisms [--json]
//
// The mechanisms compiled into this failmap (src/mechanisms/), with their
// evaluation groups, parameters (minimum, maximum, default) and how many
// cases of each the archive holds. Without an archive at --db the counts
// are 0 and the report says so: the mechanisms are compiled in, so they can
// be listed before anything is imported.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/common.h"
#include "core/expr.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "serve/catalog.h"

namespace failmap::cli {
namespace {

struct MechanismsOptions {
  bool json = false;
};

// One parameter of a mechanism as listed: name, bounds, default binding.
struct ParameterInfo {
  std::string name;
  std::int64_t minimum = 0;
  std::optional<std::int64_t> maximum;
  std::optional<Value> default_value;
};

std::vector<ParameterInfo> parameters_of(const Mechanism& m) {
  std::vector<ParameterInfo> out;
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    ParameterInfo p;
    p.name = std::string(m.parameters[i]);
    p.minimum = i < m.parameter_minimum.size() ? m.parameter_minimum[i] : 0;
    if (i < m.parameter_maximum.size()) p.maximum = m.parameter_maximum[i];
    if (i < m.default_binding.size())
      if (auto v = evaluate_expression(m.default_binding[i], {})) p.default_value = std::move(*v);
    out.push_back(std::move(p));
  }
  return out;
}

int run_mechanisms(Context& ctx, const MechanismsOptions& o) {
  // Counts from the archive when there is one; none is not an error here.
  std::map<std::string, std::int64_t> counts;
  const bool have_archive = std::filesystem::exists(ctx.db_path);
  if (have_archive) {
    auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
    if (!archive) return report(archive.error());
    auto c = archive->case_counts_by_mechanism();
    if (!c) return report(c.error());
    counts = std::move(*c);
  }
  auto count_of = [&](std::string_view id) -> std::int64_t {
    auto it = counts.find(std::string(id));
    return it == counts.end() ? 0 : it->second;
  };
  std::int64_t compiled_cases = 0;
  for (const Mechanism* m : all_mechanisms()) compiled_cases += count_of(m->id);
  if (o.json) {
    std::string out;
    for (const Mechanism* m : all_mechanisms()) out += dump_compact(serve::mechanism_json(*m, count_of(m->id))) + "\n";
    std::cout << out;
  } else {
    TerminalSafeStdout safe;
    for (const Mechanism* m : all_mechanisms()) {
      std::cout << m->id << "  (" << count_of(m->id) << " case(s))\n";
      std::cout << "  title:             " << m->title << "\n";
      std::cout << "  source:            "
                << (m->source.empty() ? std::string("none (taken from a published case page)") : std::string(m->source))
                << "\n";
      std::cout << "  evaluation_group:  ";
      for (std::size_t i = 0; i < m->evaluation_group.size(); ++i)
        std::cout << (i ? ", " : "") << m->evaluation_group[i];
      std::cout << "\n  parameters:        ";
      bool first = true;
      for (const ParameterInfo& p : parameters_of(*m)) {
        std::cout << (first ? "" : "; ") << p.name;
        if (p.maximum) std::cout << " from " << p.minimum << " to " << *p.maximum;
        else std::cout << " >= " << p.minimum << " (no declared maximum)";
        if (p.default_value) std::cout << ", default " << python_repr(*p.default_value);
        first = false;
      }
      std::cout << "\n";
    }
    std::cout << all_mechanisms().size() << " mechanism(s) compiled in; ";
    if (have_archive) std::cout << compiled_cases << " case(s) of them in " << ctx.db_path << "\n";
    else std::cout << "no archive at " << ctx.db_path << " (case counts 0; failmap import cases/ fills one)\n";
  }
  // Cases whose mechanism this build does not hold (an archive written by
  // another build): said, not left out of the counts silently.
  for (const auto& [id, n] : counts)
    if (!find_mechanism(id))
      std::cerr << "failmap: note: " << terminal_safe(ctx.db_path) << " holds " << n << " case(s) of mechanism '"
                << terminal_safe(id) << "', which is not compiled into this failmap\n";
  return k_exit_ok;
}

}  // namespace

void setup_mechanisms(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<MechanismsOptions>();
  sub.add_flag("--json", o->json,
               "one JSON object per mechanism (JSON Lines): id, title, source (null: none), evaluation_group, "
               "parameters [{name, minimum, maximum (null: none declared), default}], checks, repair_compiled, cases");
  sub.callback([&ctx, o] { ctx.exit_status = run_mechanisms(ctx, *o); });
}

}  // namespace failmap::cli
