// failmap verify [CASE...] [--json] [--jobs N]
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "io/json.h"
#include "store/digests.h"

namespace failmap::cli {

namespace {

struct VerifyOptions {
  std::vector<std::string> ids;
  bool json = false;
  unsigned jobs = 1;
};

int run_verify(Context& ctx, const VerifyOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  // Each case once, in the order first named (`verify A A` verifies one case).
  std::vector<std::string> ids;
  for (const std::string& id : o.ids)
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  auto r = verify_cases(*archive, ids, o.jobs);
  if (!r) return report(r.error());
  bool ok = r->mismatches.empty();
  if (o.json) {
    Json list = digest_differences_json(r->mismatches, "stored", "recomputed");
    std::cout << dump_compact(Json{{"ok", ok},
                                   {"cases", r->cases},
                                   {"runs", r->runs},
                                   {"without_field_digests", r->without_field_digests},
                                   {"mismatches", list}})
              << "\n";
  } else {
    for (const DigestMismatch& m : r->mismatches) print_digest_difference(m, "stored", "recomputed");
    // Not a mismatch (an archive from before schema 3 has none), but a
    // change to such a case can be named only as its case digest.
    if (r->without_field_digests > 0)
      std::cout << r->without_field_digests
                << " case(s) hold no field digests (as cases migrated from before schema 3): only their case digest was "
                   "compared; `failmap digest regenerate` stores them\n";
    std::cout << "verified " << r->cases << " case(s) and " << r->runs << " replayed run(s): "
              << (ok ? "everything matches" : std::to_string(r->mismatches.size()) + " mismatch(es)") << "\n";
  }
  return ok ? k_exit_ok : k_exit_mismatch;
}

}  // namespace

void setup_verify(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<VerifyOptions>();
  sub.add_option("cases", o->ids, "case ids (default: every case)");
  sub.add_flag("--json", o->json, "one JSON object: ok, cases, runs, without_field_digests, mismatches [{case, strategy, field, stored, recomputed}]");
  CLI::Option* jobs = sub.add_option("-j,--jobs", o->jobs, "verify every case on N threads; the report is identical to --jobs 1")
      ->check(jobs_validator());
  // Interruptible like the long commands that write: the first SIGINT or
  // SIGTERM stops it with one line (it writes nothing either way).
  sub.callback([&ctx, o, jobs] {
    if (jobs->count() > 0 && !o->ids.empty()) {  // named cases are verified one at a time
      ctx.exit_status = report(input_error("--jobs: only when verifying every case (no CASE named)"));
      return;
    }
    ctx.exit_status = run_interruptible([&] { return run_verify(ctx, *o); }, "verify writes nothing: the archive is as it was");
  });
}

}  // namespace failmap::cli
