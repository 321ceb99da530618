// failmap history CASE [--json]
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "encoding/sha256.h"

namespace failmap::cli {
namespace {

struct HistoryOptions {
  std::string id;
  bool json = false;
};

int run_history(Context& ctx, const HistoryOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  auto entries = archive->history(o.id);
  if (!entries) return report(entries.error());
  auto current = archive->has_case(o.id);
  if (!current) return report(current.error());
  if (!*current && entries->empty())
    return report(
        input_error("unknown case '" + o.id + "' in " + archive->db().path() + " (no current version, no history)"));
  if (o.json) {  // one object, also when there is no earlier version
    Json versions = Json::array();
    for (const HistoryEntry& e : *entries) {
      auto record = parse_json_strict(e.record, "history of " + o.id);
      if (!record) return report(record.error());
      versions.push_back(Json{
          {"version", e.version}, {"replaced_at", e.replaced_at}, {"replaced_by", e.replaced_by}, {"record", *record}});
    }
    std::cout << dump_compact(Json{{"case", o.id}, {"current", *current}, {"versions", versions}}) << "\n";
    return k_exit_ok;
  }
  TerminalSafeStdout safe;
  // Columns: the version in 9, the 20 characters of the UTC time and 2, 16 hex digits and 3.
  std::cout << "VERSION  REPLACED AT           RECORD SHA-256     REPLACED BY\n";
  for (const HistoryEntry& e : *entries) {
    std::string version = std::to_string(e.version);
    std::cout << version << std::string(version.size() < 9 ? 9 - version.size() : 1, ' ') << e.replaced_at << "  "
              << sha256_hex(e.record).substr(0, 16) << "   " << e.replaced_by << "\n";
  }
  std::cout << (*current ? "current  (in the archive)" : "current  (none: the case was deleted)") << "\n";
  std::cout << entries->size() << " earlier version(s) of " << o.id << "\n";
  return k_exit_ok;
}

}  // namespace

void setup_history(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<HistoryOptions>();
  sub.add_option("case", o->id, "case id")->required();
  sub.add_flag("--json", o->json,
               "one JSON object: case, current (whether the archive holds it), versions [{version, replaced_at, "
               "replaced_by, record}] oldest first ([] when there is none), each with its full case record");
  sub.callback([&ctx, o] { ctx.exit_status = run_history(ctx, *o); });
}

}  // namespace failmap::cli
