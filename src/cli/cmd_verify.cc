// failmap verify [CASE...] [--json] [--jobs N]
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "grade/grader.h"
#include "store/archive_digests.h"
#include "store/gradings.h"

namespace failmap::cli {

namespace {

struct VerifyOptions {
  std::vector<std::string> ids;
  bool json = false;
  unsigned jobs = 1;
};

// One recorded grading that does not judge the same again.
struct GradingMismatch {
  std::string case_id, source_sha256, difference;
};

// What verify found in the archive's record of gradings (schema/GRADING.md
// "Recording"): each record of a case the archive holds with that case
// digest is judged again (judge_recorded); a record of a case changed or
// removed since cannot be, and is counted.
struct GradingCheck {
  std::uint64_t checked = 0, not_checked = 0;
  std::vector<GradingMismatch> mismatches;
};

Result<GradingCheck> check_gradings(Archive& archive, const std::vector<std::string>& ids) {
  GradingCheck out;
  std::map<std::pair<std::string, std::size_t>, GradingCase> prepared;  // (case id, held-out count)
  Status s = for_each_grading(archive, [&](const RecordedGrading& g) -> Status {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), g.case_id) == ids.end()) return ok_status();
    if (g.case_id.empty()) {
      ++out.not_checked;
      return ok_status();
    }
    ++out.checked;
    auto mismatch = [&](std::string what) {
      out.mismatches.push_back({g.case_id, g.source_sha256, std::move(what)});
      return ok_status();
    };
    auto settings = parse_json_strict(g.settings, "settings");
    if (!settings || !settings->is_object() || !(*settings)["held_out"].is_number_unsigned() ||
        !(*settings)["sandbox"].is_string())
      return mismatch("field 'settings': stored " + dump_compact(Json(g.settings)) +
                      ", not the settings failmap writes");
    auto mode = sandbox_mode_from_name((*settings)["sandbox"].get<std::string>());
    if (!mode)
      return mismatch("field 'settings.sandbox': stored " + dump_compact((*settings)["sandbox"]) +
                      ", no sandbox failmap names");
    const std::size_t held_out = (*settings)["held_out"].get<std::size_t>();
    auto key = std::pair{g.case_id, held_out};
    auto it = prepared.find(key);
    if (it == prepared.end()) {
      FAILMAP_TRY_ASSIGN(auto c, archive.load_case(g.case_id));
      if (!c) return ok_status();
      FAILMAP_TRY_ASSIGN(auto gc, prepare_grading_case(*c, g.case_digest, held_out));
      it = prepared.emplace(key, std::move(gc)).first;
    }
    auto judged = judge_recorded(it->second, g.result, *mode, "grading");
    if (!judged) {
      std::string what = judged.error().message;
      if (what.rfind("grading: ", 0) == 0) what = what.substr(9);
      return mismatch(what);
    }
    return ok_status();
  });
  FAILMAP_TRY(s);
  return out;
}

int run_verify(Context& ctx, const VerifyOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  // Each case once, in the order first named (`verify A A` verifies one case).
  std::vector<std::string> ids;
  for (const std::string& id : o.ids)
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  auto r = verify_cases(*archive, ids, o.jobs);
  if (!r) return report(r.error());
  auto gradings = check_gradings(*archive, ids);
  if (!gradings) return report(gradings.error());
  bool ok = r->mismatches.empty() && gradings->mismatches.empty();
  if (o.json) {
    Json list = digest_differences_json(r->mismatches, "stored", "recomputed");
    Json grading_list = Json::array();
    for (const GradingMismatch& m : gradings->mismatches)
      grading_list.push_back(
          Json{{"case", m.case_id}, {"source_sha256", m.source_sha256}, {"difference", m.difference}});
    std::cout << dump_compact(Json{{"ok", ok},
                                   {"cases", r->cases},
                                   {"runs", r->runs},
                                   {"without_field_digests", r->without_field_digests},
                                   {"mismatches", list},
                                   {"gradings", Json{{"checked", gradings->checked},
                                                     {"not_checked", gradings->not_checked},
                                                     {"mismatches", grading_list}}}})
              << "\n";
  } else {
    for (const DigestMismatch& m : r->mismatches) print_digest_difference(m, "stored", "recomputed");
    for (const GradingMismatch& m : gradings->mismatches)
      std::cout << terminal_safe(m.case_id + "  grading of source " + m.source_sha256.substr(0, 12) + "…  " +
                                 m.difference)
                << "\n";
    if (gradings->not_checked > 0)
      std::cout << gradings->not_checked
                << " recorded grading(s) of cases changed or removed since cannot be judged again: `failmap grade "
                   "forget --stale` drops them\n";
    // Not a mismatch (an archive from before schema 3 has none), but a
    // change to such a case can be named only as its case digest.
    if (r->without_field_digests > 0)
      std::cout
          << r->without_field_digests
          << " case(s) hold no field digests (as cases migrated from before schema 3): only their case digest was "
             "compared; `failmap digest regenerate` stores them\n";
    const std::size_t found = r->mismatches.size() + gradings->mismatches.size();
    std::cout << "verified " << r->cases << " case(s)" << (gradings->checked ? ", " : " and ") << r->runs
              << " replayed run(s)"
              << (gradings->checked ? " and " + std::to_string(gradings->checked) + " recorded grading(s)" : "") << ": "
              << (ok ? "everything matches" : std::to_string(found) + " mismatch(es)") << "\n";
  }
  return ok ? k_exit_ok : k_exit_mismatch;
}

}  // namespace

void setup_verify(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<VerifyOptions>();
  sub.add_option("cases", o->ids, "case ids (default: every case)");
  sub.add_flag("--json", o->json,
               "one JSON object: ok, cases, runs, without_field_digests, mismatches [{case, strategy, field, stored, "
               "recomputed}], gradings {checked, not_checked, mismatches [{case, source_sha256, difference}]}");
  CLI::Option* jobs =
      sub.add_option("-j,--jobs", o->jobs, "verify every case on N threads; the report is identical to --jobs 1")
          ->check(jobs_validator());
  // Interruptible like the long commands that write: the first SIGINT or
  // SIGTERM stops it with one line (it writes nothing either way).
  sub.callback([&ctx, o, jobs] {
    if (jobs->count() > 0 && !o->ids.empty()) {  // named cases are verified one at a time
      ctx.exit_status = report(input_error("--jobs: only when verifying every case (no CASE named)"));
      return;
    }
    ctx.exit_status =
        run_interruptible([&] { return run_verify(ctx, *o); }, "verify writes nothing: the archive is as it was");
  });
}

}  // namespace failmap::cli
