// failmap migrate [--json]: brings an archive written by an older failmap to
// the current schema version (schema/NNN_*.sql, applied in order, one
// transaction each). Read-only commands refuse an old archive rather than
// write to it; this is the command that only migrates.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "store/sqlite.h"

namespace failmap::cli {
namespace {

struct MigrateOptions {
  bool json = false;
};

int run_migrate(Context& ctx, const MigrateOptions& o) {
  // The version before, read without migrating (an Archive opens by migrating).
  int before = 0;
  {
    auto db = Database::open(ctx.db_path, Database::Mode::ReadOnly);
    if (!db) return report(db.error());
    auto st = db->prepare("PRAGMA user_version");
    if (!st) return report(input_error(ctx.db_path + ": not a failmap archive (" + st.error().message + ")"));
    auto r = st->step();
    if (!r) return report(input_error(ctx.db_path + ": not a failmap archive (" + r.error().message + ")"));
    before = static_cast<int>(st->column_int(0));
  }
  if (before == 0)
    return report(input_error(ctx.db_path +
                              ": not a failmap archive (schema version 0: an empty file or another "
                              "program's database); `failmap import` or `failmap instantiate` makes a new one"));
  auto archive = open_archive(ctx, Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  auto after = archive->schema_version();
  if (!after) return report(after.error());
  if (o.json) {
    std::cout << dump_compact(Json{{"archive", ctx.db_path}, {"from", before}, {"to", *after}}) << "\n";
  } else if (before == *after) {
    std::cout << ctx.db_path << ": already at schema version " << *after << "; nothing to do\n";
  } else {
    std::cout << "migrated " << ctx.db_path << " from schema version " << before << " to " << *after << "\n";
  }
  return k_exit_ok;
}

}  // namespace

void setup_migrate(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<MigrateOptions>();
  sub.add_flag("--json", o->json,
               "one JSON object: archive, from and to (schema versions; equal when nothing was done)");
  sub.callback([&ctx, o] { ctx.exit_status = run_migrate(ctx, *o); });
}

}  // namespace failmap::cli
