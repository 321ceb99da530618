// failmap remove CASE... [--json]
//
// Removes cases with their recorded runs in one transaction. Each removed
// version is kept in case_history as `import --replace` keeps a replaced one
// (`failmap history CASE` shows it, "replaced by" `failmap remove`). Every id
// is looked up before anything is removed: one unknown id refuses the whole
// command (exit 2), the archive unchanged.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"

namespace failmap::cli {
namespace {

struct RemoveOptions {
  std::vector<std::string> ids;
  bool json = false;
};

/// What case_history.replaced_by says of a version this command removed.
constexpr const char* k_removed_by = "failmap remove";

int run_remove(Context& ctx, const RemoveOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  // An id given twice is removed once.
  std::vector<std::string> ids;
  for (const std::string& id : o.ids)
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  Transaction tx(archive->db());
  if (auto s = tx.begin(); !s) return report(s.error());
  std::vector<std::string> unknown;
  for (const std::string& id : ids) {
    auto exists = archive->has_case(id);
    if (!exists) return report(exists.error());
    if (!*exists) unknown.push_back("'" + id + "'");
  }
  if (!unknown.empty()) {
    std::string names;
    for (const std::string& u : unknown) names += (names.empty() ? "" : ", ") + u;
    return report(input_error("unknown case" + std::string(unknown.size() > 1 ? "s " : " ") + names + " in " +
                              archive->db().path() + " (see `failmap list`); nothing was removed"));
  }
  const std::string now = utc_now_iso8601();
  std::uint64_t runs = 0;
  for (const std::string& id : ids) {
    auto c = require_case(*archive, id);
    if (!c) return report(c.error());
    if (auto s = archive->save_history(*c, k_removed_by, now); !s) return report(s.error());
    auto dropped = archive->delete_case(id);
    if (!dropped) return report(dropped.error());
    runs += *dropped;
  }
  if (auto s = check_interrupt(); !s) return report(s.error());
  if (auto s = tx.commit(); !s) return report(s.error());
  if (o.json) {
    std::cout << dump_compact(Json{{"removed", ids}, {"runs_removed", runs}}) << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  std::cout << "removed " << ids.size() << " case(s) and " << runs << " recorded run(s) from " << archive->db().path()
            << "; each removed version is kept (failmap history " << (ids.size() == 1 ? ids.front() : "CASE") << ")\n";
  return k_exit_ok;
}

}  // namespace

void setup_remove(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<RemoveOptions>();
  sub.add_option("cases", o->ids, "ids of the cases to remove, e.g. FA-98921")->required();
  sub.add_flag("--json", o->json, "one JSON object: removed (the ids, in the order given), runs_removed");
  sub.callback([&ctx, o] { ctx.exit_status = run_interruptible([&] { return run_remove(ctx, *o); }, k_unchanged); });
}

}  // namespace failmap::cli
