// failmap import PATH... [--replace] [--force] [--json] [--jobs N]
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/common.h"
#include "cli/progress_bar.h"
#include "encoding/json.h"
#include "store/importer.h"

namespace failmap::cli {
namespace {

struct ImportCliOptions {
  std::vector<std::string> paths;
  bool replace = false;
  bool skip_existing = false;
  bool force = false;
  bool json = false;
  unsigned jobs = 2;
};

// Removes an archive file this command created, with its WAL side files.
void remove_created_archive(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

int run_import(Context& ctx, const ImportCliOptions& o) {
  if (o.replace && o.skip_existing)
    return report(
        input_error("--replace and --skip-existing: give one (a case already present with other content is "
                    "either replaced or left as it is)"));
  bool existed = std::filesystem::exists(ctx.db_path);
  int status = k_exit_ok;
  {
    auto archive = open_archive(ctx, Archive::Mode::Create);
    if (!archive) return report(archive.error());
    ImportOptions options;
    options.on_conflict = o.replace ? OnConflict::Replace : o.skip_existing ? OnConflict::Skip : OnConflict::Refuse;
    options.on_disagreement = o.force ? OnDisagreement::Force : OnDisagreement::Refuse;
    options.jobs = o.jobs;
    options.keep_ids = o.json;  // only --json lists them: 100,000 ids are ~8 MiB
    options.find_same_content = true;
    Progress importing(ctx, "importing", count_import_cases(o.paths));
    options.progress = importing.callback();
    ImportSession session(*archive, options);
    if (auto s = session.begin(); !s) return report(s.error());
    import_paths(session, o.paths);
    auto r = session.finish();
    importing.finish();
    if (!r) {
      status = report_refused_import(session.errors(), r.error());
    } else {
      note_same_content(r->same_content);  // before the report, as instantiate prints them
      if (o.json) {
        Json skipped = Json::array();
        for (const ImportReport::Skipped& k : r->skipped)
          skipped.push_back(Json{{"id", k.id}, {"source", k.source}, {"members_differing", k.differing}});
        Json j{{"added", r->added},
               {"unchanged", r->unchanged},
               {"replaced", r->replaced},
               {"skipped", skipped},
               {"runs_skipped", r->runs_skipped},
               {"runs_added", r->runs_added},
               {"runs_unchanged", r->runs_unchanged},
               {"runs_replaced", r->runs_replaced},
               {"runs_dropped", r->runs_dropped},
               {"disagreements_recorded", r->disagreements},
               {"same_content", Json::array()}};
        for (const ImportReport::SameContent& s : r->same_content)
          j["same_content"].push_back(Json{{"id", s.id}, {"same_content_as", s.same_content_as}});
        std::cout << dump_compact(j) << "\n";
      } else {
        std::optional<TerminalSafeStdout> safe;  // ids and file names from the input
        if (!r->skipped.empty()) safe.emplace();
        for (const ImportReport::Skipped& k : r->skipped)
          std::cout << "skipped " << k.id << " (" << k.source
                    << "): already in the archive with other content (members that differ: " << k.differing
                    << "); the archive's version is left as it is\n";
        std::cout << "imported " << r->added_count << " new case(s), " << r->replaced_count << " replaced, "
                  << r->unchanged_count << " unchanged";
        if (o.skip_existing) std::cout << ", " << r->skipped.size() << " skipped";
        if (r->runs_added || r->runs_unchanged)
          std::cout << "; " << r->runs_added << " run(s) recorded"
                    << (r->runs_replaced ? " (" + std::to_string(r->runs_replaced) +
                                               " in place of another recording of the same case and strategy)"
                                         : std::string())
                    << ", " << r->runs_unchanged << " unchanged";
        std::cout << " into " << ctx.db_path << "\n";
        if (r->runs_skipped)
          std::cout << "left out " << r->runs_skipped
                    << " run(s) of the skipped case(s): they observed the input's version\n";
        std::cout << dropped_runs_note(r->runs_dropped);
        if (r->disagreements)
          std::cout << "recorded " << r->disagreements
                    << " disagreement(s) between the page and the computed tables (--force)\n";
        if (r->added_count == 0 && r->replaced_count == 0 && r->runs_added == 0)
          std::cout << (r->skipped.empty() ? "nothing changed: the archive already holds identical content\n"
                                           : "nothing changed\n");
      }
    }
  }
  if (status != k_exit_ok && !existed) remove_created_archive(ctx.db_path);
  return status;
}

}  // namespace

std::string dropped_runs_note(std::uint64_t runs) {
  if (runs == 0) return {};
  return "dropped " + std::to_string(runs) +
         " recorded run(s) of the replaced version(s): they observed the old "
         "content (`failmap run` records new ones; `failmap history CASE` keeps the old records)\n";
}

void note_same_content(const std::vector<ImportReport::SameContent>& same) {
  // At most k_noted cases and k_names others each: importing a folder of
  // republished cases would otherwise print a wall.
  constexpr std::size_t k_noted = 10, k_names = 3;
  for (std::size_t i = 0; i < same.size() && i < k_noted; ++i) {
    const std::vector<std::string>& as = same[i].same_content_as;
    std::string names;
    for (std::size_t k = 0; k < as.size() && k < k_names; ++k) names += (k == 0 ? "" : ", ") + as[k];
    if (as.size() > k_names) names += " and " + std::to_string(as.size() - k_names) + " other case(s)";
    std::cerr << "failmap: note: " << terminal_safe(same[i].id) << " has the same content (the same checks) as "
              << terminal_safe(names) << ", already in the archive (`failmap remove " << terminal_safe(same[i].id)
              << "` takes it out; split --group-by content keeps them on one side)\n";
  }
  if (same.size() > k_noted)
    std::cerr << "failmap: note: " << same.size() - k_noted << " more new case(s) have the same content as a case "
              << "already in the archive (`--json` lists them all under same_content)\n";
}

void setup_import(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ImportCliOptions>();
  sub.add_option("paths", o->paths,
                 "case files (*.json), published pages (*.txt), bundle folders (with manifest.json) or folders of them")
      ->required()
      ->check(nonempty_validator("the path of a case file, page or folder"));
  sub.add_flag(
      "--replace", o->replace,
      "overwrite cases whose id exists with different content; the previous version is kept (failmap history)");
  sub.add_flag("--skip-existing", o->skip_existing,
               "leave a case whose id exists with different content as the archive has it (and the input's runs of it "
               "unrecorded), report it, and import the rest; not with --replace");
  sub.add_flag("--force", o->force,
               "import pages whose tables disagree with the computed ones, recording each disagreement");
  sub.add_flag("--json", o->json, "print the report as JSON");
  sub.add_option(
         "-j,--jobs", o->jobs,
         "read, check and convert a bundle's records on N threads beside the one writing the archive (--jobs 1: "
         "everything on one thread); the archive, report and problems are identical to --jobs 1")
      ->capture_default_str()
      ->check(jobs_validator());
  sub.callback([&ctx, o] { ctx.exit_status = run_interruptible([&] { return run_import(ctx, *o); }, k_unchanged); });
}

}  // namespace failmap::cli
