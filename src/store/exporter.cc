#include "store/exporter.h"

#include <algorithm>
#include <set>

#include "io/bundle.h"
#include "io/digest.h"
#include "io/sha256.h"
#include "io/signature.h"
#include "io/page.h"
#include "io/pyjson.h"

namespace fs = std::filesystem;

namespace failmap {
namespace {

// Calls fn for the selected cases in id order: every case, or the given ids
// (each checked to exist first; all missing ones are named in one error).
Status for_selected_cases(Archive& archive, const std::vector<std::string>& ids_in,
                          const std::function<Status(const Case&)>& fn) {
  if (ids_in.empty()) return archive.for_each_case(fn);
  std::vector<std::string> ids = ids_in;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string missing;
  for (const std::string& id : ids) {
    auto has = archive.has_case(id);
    if (!has) return has.error();
    if (!*has) missing += (missing.empty() ? "" : ", ") + id;
  }
  if (!missing.empty()) return input_error("unknown case(s) in " + archive.db().path() + ": " + missing);
  for (const std::string& id : ids) {
    auto c = archive.load_case(id);
    if (!c) return c.error();
    if (auto s = fn(**c); !s) return s;
  }
  return ok_status();
}

// Appends the bundle's case record line (with its '\n'): case_record plus
// case_digest (over the runs the bundle carries), the repair salt (member
// tier) and the repair commitment, written directly (no JSON tree).
Status append_sealed_case_record(std::string& out, const Case& c, Tier tier, const std::vector<StoredRun>& runs,
                                 const RepairSeal& seal) {
  append_case_record_open(out, c, tier);
  std::vector<RunDigestInput> inputs;
  for (const StoredRun& r : runs) inputs.push_back(RunDigestInput{r.strategy, r.exit_status, r.digest});
  auto text = case_digest_text(c, inputs);
  if (!text) return text.error();
  out += ",\"";
  out += k_case_digest_member;
  out += "\":\"";
  out += sha256_hex(*text);
  std::string commitment = seal.commitment;
  if (seal.salt) {
    auto repaired = replay_repaired(c);
    if (!repaired) return repaired.error();
    auto canonical = canonical_repaired_record(c, *repaired);
    if (!canonical) return canonical.error();
    commitment = repair_commitment(*seal.salt, *canonical);
    if (tier == Tier::Member) {
      out += "\",\"";
      out += k_repair_salt_member;
      out += "\":\"";
      out += salt_hex(*seal.salt);
    }
  }
  out += "\",\"";
  out += k_repair_commitment_member;
  out += "\":";
  append_python_json_string(out, commitment);  // verbatim from an open bundle: escape like any string
  out += "}\n";
  return ok_status();
}

// Removes what an aborted export wrote into `dir` (which was new or empty).
void clean_up(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    fs::remove_all(it->path(), ec);
}

template <class Body>
Result<ExportReport> with_writer(const ExportOptions& options, const std::string& format, Body body) {
  if (options.sign_key)
    if (auto s = ed25519_check_private_key(*options.sign_key); !s) return s.error();
  auto writer = BundleWriter::create(options.out, options.tier, format);
  if (!writer) return writer.error();
  if (options.sign_key) (*writer)->sign_with(*options.sign_key);
  ExportReport report;
  Status s = body(**writer, report);
  if (s) s = (*writer)->finish(format == "failmap-bundle"
                                   ? std::vector<std::string>{k_mechanisms_file, k_cases_file, k_runs_file}
                                   : std::vector<std::string>{});
  if (!s) {
    writer->reset();
    clean_up(options.out);
    return s.error();
  }
  return report;
}

}  // namespace

Result<ExportReport> export_jsonl(Archive& archive, const ExportOptions& options) {
  return with_writer(options, "failmap-bundle", [&](BundleWriter& w, ExportReport& report) -> Status {
    std::set<std::string> mechanisms;
    std::string line;  // one record, reused
    auto s = for_selected_cases(archive, options.ids, [&](const Case& c) -> Status {
      auto stored = archive.load_runs(c.id);
      if (!stored) return stored.error();
      std::vector<StoredRun> runs;
      for (StoredRun& r : *stored)
        if (tier_shows(options.tier, r.strategy)) runs.push_back(std::move(r));
      auto seal = archive.repair_seal(c.id);
      if (!seal) return seal.error();
      line.clear();
      if (auto st = append_sealed_case_record(line, c, options.tier, runs, *seal); !st) return st;
      if (auto st = w.write_line(k_cases_file, line, "case"); !st) return st;
      ++report.cases;
      mechanisms.insert(c.mechanism);
      for (const StoredRun& r : runs) {
        line.clear();
        append_run_record(line, r);
        line += '\n';
        if (auto st = w.write_line(k_runs_file, line, "run"); !st) return st;
        ++report.runs;
      }
      return ok_status();
    });
    if (!s) return s;
    for (const std::string& id : mechanisms) {
      const Mechanism* m = find_mechanism(id);
      if (!m) return input_error("mechanism '" + id + "' is not compiled into this failmap");
      if (auto st = w.write_record(k_mechanisms_file, mechanism_record(*m, options.tier)); !st) return st;
      ++report.mechanisms;
    }
    return ok_status();
  });
}

Result<ExportReport> export_pages(Archive& archive, const ExportOptions& options) {
  return with_writer(options, "failmap-pages", [&](BundleWriter& w, ExportReport& report) -> Status {
    return for_selected_cases(archive, options.ids, [&](const Case& c) -> Status {
      auto page = render_page(c, options.tier);
      if (!page) return page.error();
      if (auto st = w.write_file(c.id + ".txt", *page, "page"); !st) return st;
      ++report.pages;
      return ok_status();
    });
  });
}

}  // namespace failmap
