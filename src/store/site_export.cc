#include "store/site_export.h"

#include "core/parallel.h"
#include "encoding/signature.h"
#include "io/bundle.h"
#include "io/leaderboard.h"
#include "io/observation.h"
#include "io/site.h"

namespace failmap {
namespace {

constexpr std::size_t k_site_batch = 1024;

// The index's view of a case: its recorded runs of the strategies the tier shows.
SiteCaseSummary summarize(const ArchivedCase& a, Tier tier) {
  SiteCaseSummary s{a.c.id, a.c.mechanism, a.c.title, a.c.variant, a.c.tier, a.c.evaluation_group, {}};
  for (StrategyKind k : k_all_strategies) {
    if (!tier_shows(tier, k)) continue;
    SiteRunOutcome& o = s.runs.emplace_back();
    o.strategy = k;
    for (const StoredRunRow& row : a.runs) {
      if (row.run.strategy != k) continue;
      o.recorded = true;
      o.exit_status = row.run.exit_status;
      // A document stored verbatim (one failmap would not write) shows its exit status alone.
      if (auto run = compact_observation(a.c, k, row.run.observation)) {
        o.checks = run->passed.size();
        for (unsigned char p : run->passed) o.passed += p;
      }
    }
  }
  return s;
}

struct Rendered {
  std::string page;
  SiteCaseSummary summary;
  Status status = ok_status();
  bool decoded = false;  // whether `status` is an Error of the check or render (then advised_refusal applies)
};

}  // namespace

Result<ExportReport> export_site(Archive& archive, const ExportOptions& options) {
  if (!options.ids.empty())
    return input_error(
        "--format site exports the whole archive (its index and mechanism pages list every case): "
        "give no case ids");
  if (options.sign_key) FAILMAP_TRY(ed25519_check_private_key(*options.sign_key));
  // The gradings first: a folder that fails its check stops the export
  // before anything is written.
  std::vector<ModelScore> scores;
  for (const std::filesystem::path& dir : options.results) {
    FAILMAP_TRY_ASSIGN(auto read, read_grading_folder(dir));
    for (ModelScore& s : read) scores.push_back(std::move(s));
  }
  const bool leaderboard = !scores.empty();
  FAILMAP_TRY_ASSIGN(auto writer, BundleWriter::create(options.out, options.tier, "failmap-site"));
  if (options.sign_key) (writer)->sign_with(*options.sign_key);
  FAILMAP_TRY_ASSIGN(auto scan, archive.scan(Archive::ScanFields::CasesRunsSeals));
  const std::string& path = archive.db().path();
  ExportReport report;
  std::vector<SiteCaseSummary> summaries;
  // Each case checked and its page rendered on `jobs` threads
  // (core/parallel.h), its page written and its summary kept in id order.
  ParallelOptions parallel;
  parallel.jobs = options.jobs;
  parallel.chunk = 16;
  parallel.poll = check_interrupt;
  OrderedPipeline<ArchivedCase, Rendered> pipeline(
      parallel,
      [&](ArchivedCase& a) {
        Rendered out;
        Status s = scan.decode(a);
        out.decoded = s.ok();
        if (s) {
          auto digest = checked_archived_case(a, path, "Nothing was exported.");
          if (!digest) s = digest.error();
        }
        if (s) {
          auto page = site_case_page(a.c, options.tier, leaderboard);
          if (page) out.page = std::move(*page);
          else s = page.error();
        }
        if (s) out.summary = summarize(a, options.tier);
        out.status = s;
        return out;
      },
      [&](ArchivedCase& a, Rendered&& out) -> Status {
        if (!out.status)
          return out.decoded ? advised_refusal(archive, a, out.status, "Nothing was exported.", true) : out.status;
        FAILMAP_TRY(writer->write_file(site_case_path(a.c.id), out.page, "case page"));
        summaries.push_back(std::move(out.summary));
        ++report.cases;
        ++report.pages;
        return ok_status();
      });
  std::vector<ArchivedCase> batch;
  Status read = ok_status();
  bool more = true;
  while (more && read) {
    // On a read Error `batch` holds the cases before the failing one: their
    // errors come first, as a single pass meets them (export_jsonl does the same).
    read = scan.read(batch, k_site_batch);
    more = !batch.empty();
    for (ArchivedCase& a : batch)
      if (!pipeline.submit(std::move(a))) {
        more = false;
        break;
      }
  }
  FAILMAP_TRY(pipeline.finish());
  FAILMAP_TRY(read);
  FAILMAP_TRY_ASSIGN(auto pages, site_archive_pages(summaries, options.tier, scores));
  for (const auto& [name, bytes] : pages) {
    bool css = name == "style.css";
    bool mechanism = name.rfind("mechanism-", 0) == 0;
    FAILMAP_TRY(writer->write_file(name, bytes, css ? "stylesheet" : mechanism ? "mechanism page" : "page"));
    report.pages += !css;
    report.mechanisms += mechanism;
  }
  // An interrupt (Ctrl-C) after the last page leaves nothing at `out`.
  FAILMAP_TRY(writer->finish({}, check_interrupt));
  return report;
}

}  // namespace failmap
