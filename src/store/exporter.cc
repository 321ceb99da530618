#include "store/exporter.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/evaluate.h"
#include "core/parallel.h"
#include "core/split.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/signature.h"
#include "io/bundle.h"
#include "io/digest.h"
#include "io/observation.h"
#include "io/page.h"
#include "store/archive_digests.h"

namespace failmap {
namespace {

constexpr std::size_t k_batch = 128;  // cases read, rendered and written together

// The selected cases in id order, a batch at a time: every case (an
// Archive::Scan) or the given ids (each checked to exist first; all missing
// ones are named in one error).
class CaseSource {
 public:
  static Result<CaseSource> open(Archive& archive, const std::vector<std::string>& ids_in, Archive::ScanFields fields) {
    CaseSource source(archive, fields);
    if (ids_in.empty()) {
      FAILMAP_TRY_ASSIGN(source.m_scan, archive.scan(fields));
      return source;
    }
    std::vector<std::string>& ids = source.m_ids;
    ids = ids_in;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::string missing;
    for (const std::string& id : ids) {
      FAILMAP_TRY_ASSIGN(const bool has, archive.has_case(id));
      if (!has) missing += (missing.empty() ? "" : ", ") + id;
    }
    if (!missing.empty()) return input_error("unknown case(s) in " + archive.db().path() + ": " + missing);
    return source;
  }

  // Finishes reading a case of a batch (Archive::Scan::decode); any thread.
  Status decode(ArchivedCase& a) const { return m_scan ? m_scan->decode(a) : ok_status(); }

  // The render Error `refusal` of decoded case `a` with the advice only the
  // archive's thread can give (advised_refusal); the reading thread only.
  Status advised(ArchivedCase& a, const Status& refusal) const {
    return advised_refusal(*m_archive, a, refusal, "Nothing was exported.", m_scan.has_value());
  }

  // Replaces `batch` with the next k_batch cases (fewer at the end, none
  // when done); on an Error, `batch` holds the cases before the failing one.
  Status read(std::vector<ArchivedCase>& batch) {
    if (m_scan) return m_scan->read(batch, k_batch);
    batch.clear();
    for (; m_next < m_ids.size() && batch.size() < k_batch; ++m_next) {
      const std::string& id = m_ids[m_next];
      FAILMAP_TRY_ASSIGN(auto c, m_archive->load_case(id));
      ArchivedCase one;
      one.c = std::move(*c);
      if (m_fields == Archive::ScanFields::CasesRunsSeals) {
        FAILMAP_TRY_ASSIGN(auto runs, m_archive->load_runs(id));
        for (RunRecord& r : runs) one.runs.push_back(StoredRunRow{std::move(r), std::nullopt});
        FAILMAP_TRY_ASSIGN(one.seal, m_archive->repair_seal(id));
        FAILMAP_TRY_ASSIGN(one.stored_case_digest, m_archive->case_digest(id));
      }
      batch.push_back(std::move(one));
    }
    return ok_status();
  }

 private:
  CaseSource(Archive& archive, Archive::ScanFields fields) : m_archive(&archive), m_fields(fields) {}
  Archive* m_archive;
  Archive::ScanFields m_fields;
  std::optional<Archive::Scan> m_scan;
  std::vector<std::string> m_ids;
  std::size_t m_next = 0;
};

// Streams the cases of `source` through render(ArchivedCase&, Slot&) ->
// Status and write(const ArchivedCase&, Slot&) -> Status: the calling thread
// reads a batch of k_batch cases at a time (it alone uses SQLite), each batch
// is decoded (CaseSource::decode) and rendered on one of `jobs` threads
// (core/parallel.h), and the calling thread writes the cases in id order
// (jobs = 1: read, render, write in turn). Slot holds one case's output and a
// `status`; a written batch's cases and slots are where a later batch is read
// to (their buffers keep their capacity). The Error returned is the first in
// id order, the one a single thread meets: a case's render Error before its
// write, and a read Error after the cases read before it.
template <class Slot, class Render, class Write>
Status stream_cases(CaseSource& source, unsigned jobs, Render render, Write write) {
  struct Batch {
    std::vector<ArchivedCase> cases;
    std::vector<Slot> slots;
    std::vector<char> decoded;  // per case: whether the render Error (if any) is render's
  };
  struct Rendered {};
  std::vector<Batch> spare;
  ParallelOptions parallel;
  parallel.jobs = jobs;
  OrderedPipeline<Batch, Rendered> pipeline(
      parallel,
      [&](Batch& b) {
        for (std::size_t i = 0; i < b.cases.size(); ++i) {
          Status s = source.decode(b.cases[i]);
          b.decoded[i] = s ? 1 : 0;
          b.slots[i].status = s ? render(b.cases[i], b.slots[i]) : s;
        }
        return Rendered{};
      },
      [&](Batch& b, Rendered&&) -> Status {
        for (std::size_t i = 0; i < b.cases.size(); ++i) {
          if (!b.slots[i].status)
            return b.decoded[i] ? source.advised(b.cases[i], b.slots[i].status) : b.slots[i].status;
          FAILMAP_TRY(write(b.cases[i], b.slots[i]));
        }
        spare.push_back(std::move(b));
        return ok_status();
      });
  Status read = ok_status();
  for (bool more = true; more;) {
    Batch b;
    if (!spare.empty()) {
      b = std::move(spare.back());
      spare.pop_back();
    }
    read = source.read(b.cases);
    b.slots.resize(b.cases.size());
    b.decoded.assign(b.cases.size(), 0);
    more = read && b.cases.size() == k_batch;
    if (!b.cases.empty() && !pipeline.submit(std::move(b))) break;
  }
  FAILMAP_TRY(pipeline.finish());
  return read;
}

// One case's lines of a bundle: its case record and its run records.
struct CaseLines {
  std::string case_line;
  std::vector<std::string> run_lines;  // the first `runs` are this case's
  std::size_t runs = 0;
  Status status = ok_status();
};

// Appends the bundle's case record line (with its '\n'): case_record plus
// case_digest (over the runs the tier shows; `all_runs_digest` when it shows
// them all), the repair salt (member tier) and the repair commitment,
// written directly (no JSON tree).
Status append_sealed_case_record(std::string& out, const Case& c, Tier tier, const std::vector<StoredRunRow>& runs,
                                 const RepairSeal& seal, const std::string& all_runs_digest) {
  append_case_record_open(out, c, tier);
  std::vector<RunDigestInput> inputs;
  for (const StoredRunRow& row : runs)
    if (tier_shows(tier, row.run.strategy))
      inputs.push_back(RunDigestInput{row.run.strategy, row.run.exit_status, row.run.digest});
  std::string digest = all_runs_digest;
  if (inputs.size() != runs.size()) {
    FAILMAP_TRY_ASSIGN(digest, case_digest(c, inputs));
  }
  out += ",\"";
  out += k_case_digest_member;
  out += "\":\"";
  out += digest;
  std::string commitment = seal.commitment;
  if (seal.salt) {
    FAILMAP_TRY_ASSIGN(const auto repaired, replay_repaired(c));
    FAILMAP_TRY_ASSIGN(const auto canonical, canonical_repaired_record(c, repaired));
    commitment = repair_commitment(*seal.salt, canonical);
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

template <class Body>
Result<ExportReport> with_writer(const ExportOptions& options, const std::string& format, Body body) {
  if (options.sign_key) FAILMAP_TRY(ed25519_check_private_key(*options.sign_key));
  // The folder is staged (BundleWriter): any error, or an interrupt (Ctrl-C)
  // after the last archive read, leaves nothing at `out`.
  FAILMAP_TRY_ASSIGN(auto writer, BundleWriter::create(options.out, options.tier, format));
  ExportReport report;
  if (options.sign_key) writer->sign_with(*options.sign_key);
  writer->declare_counts(format == "failmap-bundle"  ? std::vector<std::string>{"case", "mechanism", "run"}
                         : format == "failmap-tasks" ? std::vector<std::string>{"task"}
                                                     : std::vector<std::string>{"page"});
  FAILMAP_TRY(body(*writer, report));
  FAILMAP_TRY(writer->finish(format == "failmap-bundle"
                                 ? std::vector<std::string>{k_mechanisms_file, k_cases_file, k_runs_file}
                             : format == "failmap-tasks" ? std::vector<std::string>{k_tasks_file}
                                                         : std::vector<std::string>{},
                             check_interrupt));
  return report;
}

}  // namespace

Result<std::string> checked_archived_case(ArchivedCase& a, const std::string& path, std::string_view consequence,
                                          Archive* archive, bool every_case) {
  if (auto s = rebuild_observations(a.c, a.runs, path); !s) {
    if (!archive) return s.error();
    FAILMAP_TRY_ASSIGN(const RunRefusal refusal, run_refusal(*archive, a.c.id));
    Error e = rebuild_observations(a.c, a.runs, path, refusal).error();  // the failing run again, with its advice
    return every_case ? with_other_unreadable_runs(*archive, std::move(e)) : e;
  }
  const std::string where = path + ": case " + a.c.id;
  // Published digests are outside the case digest (schema/DIGESTS.md), so
  // nothing below covers them: what a bundle or page could not hold (import
  // refuses it) is refused here rather than written.
  const auto shown = [](const std::string& v) { return "'" + (v.size() > 70 ? v.substr(0, 64) + "..." : v) + "'"; };
  if (!a.c.published.case_digest.empty() && !is_sha256_hex(a.c.published.case_digest))
    return input_error(where + ", field published_case_digest: " + shown(a.c.published.case_digest) +
                       " is not 64 lower-case hex digits (changed outside failmap). " + std::string(consequence));
  for (const PublishedRun& p : a.c.published.runs)
    if (!is_sha256_hex(p.digest))
      return input_error(where + ", published " + std::string(strategy_name(p.strategy)) +
                         " digest: " + shown(p.digest) +
                         " is not 64 lower-case hex digits (changed outside failmap). " + std::string(consequence));
  std::vector<const RunRecord*> runs;
  for (const StoredRunRow& row : a.runs) runs.push_back(&row.run);
  auto digest = checked_case_digest(a.c, runs, a.stored_case_digest, where, consequence);
  if (!digest && archive) return advise_discard_if_unreadable(*archive, a.c.id, digest.error(), &a.c).error();
  return digest;
}

Status advised_refusal(Archive& archive, ArchivedCase& a, Status refusal, std::string_view consequence,
                       bool every_case) {
  if (refusal) return refusal;
  FAILMAP_TRY(checked_archived_case(a, archive.db().path(), consequence, &archive, every_case));
  return refusal;
}

Result<ExportReport> export_jsonl(Archive& archive, const ExportOptions& options) {
  return with_writer(options, "failmap-bundle", [&](BundleWriter& w, ExportReport& report) -> Status {
    FAILMAP_TRY_ASSIGN(auto source, CaseSource::open(archive, options.ids, Archive::ScanFields::CasesRunsSeals));
    const std::string& path = archive.db().path();
    std::set<std::string> mechanisms;
    auto render = [&](ArchivedCase& a, CaseLines& out) -> Status {
      FAILMAP_TRY_ASSIGN(const std::string digest, checked_archived_case(a, path, "Nothing was exported."));
      out.case_line.clear();
      FAILMAP_TRY(append_sealed_case_record(out.case_line, a.c, options.tier, a.runs, a.seal, digest));
      out.runs = 0;
      for (const StoredRunRow& row : a.runs) {
        if (!tier_shows(options.tier, row.run.strategy)) continue;
        if (out.run_lines.size() == out.runs) out.run_lines.emplace_back();
        std::string& line = out.run_lines[out.runs++];
        line.clear();
        append_run_record(line, row.run);
        line += '\n';
      }
      return ok_status();
    };
    auto write = [&](const ArchivedCase& a, const CaseLines& lines) -> Status {
      FAILMAP_TRY(w.write_line(k_cases_file, lines.case_line, "case"));
      ++report.cases;
      if (!mechanisms.count(a.c.mechanism)) mechanisms.insert(a.c.mechanism);
      for (std::size_t i = 0; i < lines.runs; ++i) {
        FAILMAP_TRY(w.write_line(k_runs_file, lines.run_lines[i], "run"));
        ++report.runs;
      }
      return ok_status();
    };
    FAILMAP_TRY(stream_cases<CaseLines>(source, options.jobs, render, write));
    for (const std::string& id : mechanisms) {
      const Mechanism* m = find_mechanism(id);
      if (!m) return input_error("mechanism '" + id + "' is not compiled into this failmap");
      FAILMAP_TRY(w.write_record(k_mechanisms_file, mechanism_record(*m, options.tier)));
      ++report.mechanisms;
    }
    return ok_status();
  });
}

Result<ExportReport> export_pages(Archive& archive, const ExportOptions& options) {
  return with_writer(options, "failmap-pages", [&](BundleWriter& w, ExportReport& report) -> Status {
    // Runs and the stored case digest are read to check the case as a
    // bundle's export does; the page itself shows runs computed afresh.
    FAILMAP_TRY_ASSIGN(auto source, CaseSource::open(archive, options.ids, Archive::ScanFields::CasesRunsSeals));
    const std::string& path = archive.db().path();
    struct Page {
      std::string text;
      Status status = ok_status();
    };
    auto render = [&](ArchivedCase& a, Page& out) -> Status {
      FAILMAP_TRY(checked_archived_case(a, path, "Nothing was exported."));
      FAILMAP_TRY_ASSIGN(out.text, render_page(a.c, options.tier));
      return ok_status();
    };
    auto write = [&](const ArchivedCase& a, const Page& page) -> Status {
      FAILMAP_TRY(w.write_file(a.c.id + ".txt", page.text, "page"));
      ++report.pages;
      return ok_status();
    };
    return stream_cases<Page>(source, options.jobs, render, write);
  });
}

Result<std::vector<std::pair<std::string, std::string>>> archive_case_units(Archive& archive) {
  FAILMAP_TRY_ASSIGN(const std::vector<std::string> ids, archive.case_ids());
  if (ids.size() > UINT32_MAX) return input_error(archive.db().path() + ": more than 4,294,967,295 cases");
  UnitBuilder builder(static_cast<std::uint32_t>(ids.size()));
  std::uint32_t i = 0;
  FAILMAP_TRY(archive.for_each_case([&](const Case& c) -> Status {
    if (i >= ids.size() || ids[i] != c.id)
      return input_error(archive.db().path() + ": the archive changed while it was read");
    link_case(builder, i++, c);
    return ok_status();
  }));
  if (i != ids.size()) return input_error(archive.db().path() + ": the archive changed while it was read");
  FAILMAP_TRY_ASSIGN(const auto units, std::move(builder).build());
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(ids.size());
  for (std::uint32_t k = 0; k < ids.size(); ++k) out.emplace_back(ids[k], units.unit_keys[units.unit_of[k]]);
  return out;
}

Result<ExportReport> export_tasks(Archive& archive, const ExportOptions& options) {
  if (options.tier == Tier::Member && !k_build_has_repairs) return no_repairs_error("export --tier member");
  PromptTemplate default_prompt;
  if (!options.prompt) {
    FAILMAP_TRY_ASSIGN(default_prompt, parse_prompt_template(k_default_prompt_template, "the default prompt template"));
  }
  const PromptTemplate& prompt = options.prompt ? *options.prompt : default_prompt;
  FAILMAP_TRY_ASSIGN(const auto units, archive_case_units(archive));
  return with_writer(options, "failmap-tasks", [&](BundleWriter& w, ExportReport& report) -> Status {
    FAILMAP_TRY_ASSIGN(auto source, CaseSource::open(archive, options.ids, Archive::ScanFields::CasesRunsSeals));
    const std::string& path = archive.db().path();
    struct Task {
      std::string line;
      Status status = ok_status();
    };
    auto render = [&](ArchivedCase& a, Task& out) -> Status {
      FAILMAP_TRY(checked_archived_case(a, path, "Nothing was exported."));
      FAILMAP_TRY_ASSIGN(const Mechanism* m, case_mechanism(a.c));
      auto it = std::lower_bound(units.begin(), units.end(), a.c.id,
                                 [](const auto& pair, const std::string& id) { return pair.first < id; });
      if (it == units.end() || it->first != a.c.id)
        return input_error(path + ": case " + a.c.id + ": the archive changed while it was read");
      FAILMAP_TRY_ASSIGN(out.line, task_line(a.c, *m, it->second, options.tier, prompt));
      return ok_status();
    };
    auto write = [&](const ArchivedCase&, const Task& task) -> Status {
      FAILMAP_TRY(w.write_line(k_tasks_file, task.line, "task"));
      ++report.tasks;
      return ok_status();
    };
    return stream_cases<Task>(source, options.jobs, render, write);
  });
}

}  // namespace failmap
