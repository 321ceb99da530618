// failmap show CASE [--json]
//
// One case as the archive holds it: prose, binding, fixtures, recorded runs,
// the published digests, and the disagreements `import --force` kept.
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "io/case_file.h"
#include "io/page.h"

namespace failmap::cli {
namespace {

struct ShowOptions {
  std::string id;
  bool json = false;
};

int run_show(Context& ctx, const ShowOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto c = require_case(*archive, o.id);
  if (!c) return report(c.error());
  auto runs = archive->load_runs(o.id);
  if (!runs) return report(runs.error());
  // Cells where the published page said otherwise than the computation, kept by `import --force`.
  auto disagreements = archive->disagreements(o.id);
  if (!disagreements) return report(disagreements.error());
  if (o.json) {
    Json j = case_to_json(*c);
    Json rj = Json::array();
    for (const RunRecord& r : *runs)
      rj.push_back(Json{{"strategy", std::string(strategy_name(r.strategy))},
                        {"exit_status", r.exit_status},
                        {"digest", r.digest},
                        {"failmap_version", r.failmap_version},
                        {"recorded_at", r.recorded_at}});
    j["runs"] = rj;
    Json dj = Json::array();
    for (const Disagreement& d : *disagreements)
      dj.push_back(Json{{"source", d.source},
                        {"strategy", std::string(strategy_name(d.strategy))},
                        {"check", d.check},
                        {"column", d.column},
                        {"page_value", d.page_value},
                        {"computed_value", d.computed_value}});
    j["import_disagreements"] = dj;
    const Mechanism* m = find_mechanism(c->mechanism);
    j["mechanism_source"] = m ? Json(std::string(m->source)) : Json(nullptr);
    std::cout << j.dump(2) << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  const Mechanism* m = find_mechanism(c->mechanism);
  std::cout << c->id << " / " << (m ? m->title : c->mechanism) << " / " << tier_name(c->tier) << " tier\n";
  std::cout << c->title << " · case " << (c->variant < 10 ? "0" : "") << c->variant << "\n\n";
  std::cout << "mechanism:        " << c->mechanism << "\n";
  if (m && !m->source.empty()) std::cout << "source:           " << m->source << "\n";
  std::cout << "evaluation_group: ";
  for (std::size_t i = 0; i < c->evaluation_group.size(); ++i) std::cout << (i ? ", " : "") << c->evaluation_group[i];
  std::cout << "\nbinding:          ";
  for (std::size_t i = 0; i < c->params.size(); ++i)
    std::cout << (i ? ", " : "") << c->params[i].first << " = " << python_repr(c->params[i].second);
  std::cout << "\n\nROOT CAUSE\n"
            << c->prose.root_cause << "\nUnsuccessful approach: " << c->prose.unsuccessful_approach
            << "\nCase contract\n"
            << c->prose.contract << "\n\nFixtures\n";
  for (const Fixture& f : c->fixtures) {
    std::string args;
    for (std::size_t i = 0; i < f.args.size(); ++i) args += (i ? ", " : "") + python_repr(f.args[i]);
    std::cout << "  " << f.label << ": solve(" << args << ") == " << python_repr(f.expected) << "\n";
  }
  std::cout << "\nRecorded runs\n";
  if (runs->empty()) std::cout << "  none (failmap run " << c->id << ")\n";
  for (const RunRecord& r : *runs)
    std::cout << "  " << std::left << std::setw(13) << strategy_name(r.strategy) << "exit " << r.exit_status << "  "
              << r.digest << "  " << r.recorded_at << "\n";
  for (const PublishedRun& p : c->published.runs)
    std::cout << "  published " << strategy_name(p.strategy) << ": Exit " << p.exit_status << ", SHA-256 / " << p.digest
              << "\n";
  if (!c->published.case_digest.empty()) std::cout << "  published case digest: " << c->published.case_digest << "\n";
  if (!disagreements->empty()) {
    std::cout << "\nImported with --force over " << disagreements->size() << " disagreement(s) with the page\n";
    for (const Disagreement& d : *disagreements) std::cout << "  " << describe(d) << "\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_show(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ShowOptions>();
  sub.add_option("case", o->id, "case id, e.g. FA-98921")->required();
  sub.add_flag("--json", o->json, "the case record and its runs as JSON");
  sub.callback([&ctx, o] { ctx.exit_status = run_show(ctx, *o); });
}

}  // namespace failmap::cli
