// failmap digest regenerate [CASE...]
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "encoding/json.h"
#include "store/archive_digests.h"

namespace failmap::cli {
namespace {

struct DigestOptions {
  std::vector<std::string> ids;
  bool json = false;
  bool discard_unreadable_runs = false;
};

int run_regenerate(Context& ctx, const DigestOptions& o) {
  auto archive = open_archive(ctx, Archive::Mode::ReadWrite);
  if (!archive) return report(archive.error());
  auto r = regenerate_digests(*archive, o.ids, o.discard_unreadable_runs);
  if (!r) return report(r.error());
  if (o.json) {
    std::cout << dump_compact(Json{{"cases", r->cases},
                                   {"runs", r->runs},
                                   {"changes", digest_differences_json(r->changes, "was", "now")}})
              << "\n";
    return k_exit_ok;
  }
  for (const DigestMismatch& m : r->changes) print_digest_difference(m, "was", "now");
  std::cout << "regenerated the digests of " << r->cases << " case(s) and " << r->runs
            << " run(s): " << r->changes.size() << " value(s) changed\n";
  return k_exit_ok;
}

}  // namespace

void print_digest_difference(const DigestMismatch& m, const char* stored_word, const char* recomputed_word) {
  // Stored values come from the archive file as it is (a tampered label may hold an escape sequence).
  if (m.field == "unreadable") {
    std::cout << terminal_safe(m.case_id + "  -  unreadable: " + m.stored) << "\n";
    return;
  }
  std::cout << terminal_safe(m.case_id + "  " + (m.strategy.empty() ? "-" : m.strategy) + "  " + m.field + ": " +
                             stored_word + " " + m.stored + ", " + recomputed_word + " " + m.recomputed)
            << "\n";
}

Json digest_differences_json(const std::vector<DigestMismatch>& list, const char* stored_key,
                             const char* recomputed_key) {
  Json out = Json::array();
  for (const DigestMismatch& m : list)
    out.push_back(Json{{"case", m.case_id},
                       {"strategy", m.strategy.empty() ? Json(nullptr) : Json(m.strategy)},
                       {"field", m.field},
                       {stored_key, m.stored},
                       {recomputed_key, m.recomputed}});
  return out;
}

void setup_digest(CLI::App& sub, Context& ctx) {
  sub.require_subcommand(1);
  auto o = std::make_shared<DigestOptions>();
  CLI::App* regen = sub.add_subcommand(
      "regenerate",
      "Recompute every stored digest (runs, fields, case) from the stored content; write the changed "
      "ones in one transaction and list them");
  regen->add_option("cases", o->ids, "case ids (default: every case)");
  regen->add_flag("--discard-unreadable-runs", o->discard_unreadable_runs,
                  "delete the recorded runs whose stored values do not decode (each listed as a change) instead of "
                  "refusing them; `failmap run CASE` records them again");
  regen->add_flag("--json", o->json, "one JSON object: cases, runs, changes [{case, strategy, field, was, now}]");
  regen->callback(
      [&ctx, o] { ctx.exit_status = run_interruptible([&] { return run_regenerate(ctx, *o); }, k_unchanged); });
}

}  // namespace failmap::cli
