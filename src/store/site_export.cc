#include "store/site_export.h"

#include <atomic>
#include <thread>

#include "encoding/signature.h"
#include "encoding/staging.h"
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
    auto read = read_grading_folder(dir);
    if (!read) return read.error();
    for (ModelScore& s : *read) scores.push_back(std::move(s));
  }
  const bool leaderboard = !scores.empty();
  auto staging = StagingFolder::create(options.out, "export writes into a new or empty folder");
  if (!staging) return staging.error();
  auto writer = BundleWriter::create(staging->path(), options.tier, "failmap-site");
  if (!writer) return writer.error();
  if (options.sign_key) (*writer)->sign_with(*options.sign_key);
  auto scan = archive.scan(Archive::ScanFields::CasesRunsSeals);
  if (!scan) return scan.error();
  const std::string& path = archive.db().path();
  ExportReport report;
  std::vector<SiteCaseSummary> summaries;
  std::vector<ArchivedCase> batch;
  std::vector<Rendered> out;
  for (;;) {
    // On a read Error `batch` holds the cases before the failing one: their
    // errors come first, as a single pass meets them (export_jsonl does the same).
    Status read = scan->read(batch, k_site_batch);
    if (batch.empty() && !read) return read.error();
    if (batch.empty()) break;
    out.assign(batch.size(), Rendered{});
    std::atomic<std::size_t> next{0};
    auto render = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < batch.size();) {
        ArchivedCase& a = batch[i];
        Status s = scan->decode(a);
        out[i].decoded = s.ok();
        if (s) {
          auto digest = checked_archived_case(a, path, "Nothing was exported.");
          if (!digest) s = digest.error();
        }
        if (s) {
          auto page = site_case_page(a.c, options.tier, leaderboard);
          if (page) out[i].page = std::move(*page);
          else s = page.error();
        }
        if (s) out[i].summary = summarize(a, options.tier);
        out[i].status = s;
      }
    };
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < options.jobs; ++t) workers.emplace_back(render);
    render();
    for (std::thread& t : workers) t.join();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!out[i].status)
        return out[i].decoded ? advised_refusal(archive, batch[i], out[i].status, "Nothing was exported.", true).error()
                              : out[i].status.error();
      FAILMAP_TRY((*writer)->write_file(site_case_path(batch[i].c.id), out[i].page, "case page"));
      summaries.push_back(std::move(out[i].summary));
      ++report.cases;
      ++report.pages;
    }
    if (!read) return read.error();
    FAILMAP_TRY(check_interrupt());
  }
  auto pages = site_archive_pages(summaries, options.tier, scores);
  if (!pages) return pages.error();
  for (const auto& [name, bytes] : *pages) {
    bool css = name == "style.css";
    bool mechanism = name.rfind("mechanism-", 0) == 0;
    if (Status s = (*writer)->write_file(name, bytes, css ? "stylesheet" : mechanism ? "mechanism page" : "page"); !s)
      return s.error();
    report.pages += !css;
    report.mechanisms += mechanism;
  }
  FAILMAP_TRY((*writer)->finish());
  writer->reset();  // closes every file
  FAILMAP_TRY(check_interrupt());
  FAILMAP_TRY(staging->commit("export"));
  return report;
}

}  // namespace failmap
