// failmap import PATH...
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/progress.h"
#include "io/json.h"
#include "store/importer.h"

namespace failmap::cli {
namespace {

struct ImportOptions {
  std::vector<std::string> paths;
  bool replace = false;
  bool json = false;
};

int run_import(Context& ctx, const ImportOptions& o) {
  std::vector<ImportItem> items;
  std::vector<std::string> errors;
  {
    Progress reading(ctx, "reading");
    collect_import_items(o.paths, &items, &errors, reading.callback());
  }
  if (!errors.empty()) {
    report_all(errors);
    std::cerr << "failmap: " << errors.size() << " problem(s); nothing was imported\n";
    return k_exit_input;
  }
  auto archive = open_archive(ctx, Archive::Mode::Create);
  if (!archive) return report(archive.error());
  Progress importing(ctx, "importing", 2 * items.size());
  auto r = import_items(*archive, items, o.replace ? OnConflict::Replace : OnConflict::Refuse, &errors,
                        importing.callback());
  importing.finish();
  if (!r) {
    if (!errors.empty()) report_all(errors);
    return report(r.error());
  }
  if (o.json) {
    Json j{{"added", r->added}, {"unchanged", r->unchanged}, {"replaced", r->replaced}};
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "imported " << r->added.size() << " new case(s), " << r->replaced.size() << " replaced, "
              << r->unchanged.size() << " unchanged into " << ctx.db_path << "\n";
    if (r->added.empty() && r->replaced.empty() && !r->unchanged.empty())
      std::cout << "nothing changed: the archive already holds identical content\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_import(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ImportOptions>();
  sub.add_option("paths", o->paths, "case files (*.json), folders of them, published pages (*.txt) or bundle folders")
      ->required();
  sub.add_flag("--replace", o->replace, "overwrite cases whose id exists with different content");
  sub.add_flag("--json", o->json, "print the report as JSON");
  sub.callback([&ctx, o] { ctx.exit_status = run_import(ctx, *o); });
}

}  // namespace failmap::cli
