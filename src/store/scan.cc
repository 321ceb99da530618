// Streaming every case in id order (Archive::Scan, for_each_case): one
// ordered query per table (cases, published runs, runs, repair seals, case
// digests) merged by case id, in batches, with the parsing (Scan::decode)
// left to the caller's threads. What a case row holds and how it decodes is
// case_rows.cc's; a run row's, runs.cc's; a seal's, seals.cc's.
#include "store/archive.h"

#include <algorithm>

#include "store/archive_internal.h"

namespace failmap {

using archive_detail::case_digest_hex;
using archive_detail::k_case_columns;
using archive_detail::k_case_tables;

Status Archive::for_each_case(const std::function<Status(const Case&)>& fn) {
  FAILMAP_TRY_ASSIGN(auto st,
                     m_db.prepare(std::string("SELECT ") + k_case_columns + " FROM " + k_case_tables + " ORDER BY id"));
  if (Status each = st.for_each_row([&]() -> Status {
        FAILMAP_TRY_ASSIGN(auto c, case_from_row(st));
        FAILMAP_TRY(fn(c));
        return ok_status();
      });
      !each)
    return each;
  return ok_status();
}

Status Archive::Scan::Cursor::step() {
  FAILMAP_TRY_ASSIGN(has_row, st.step());
  return ok_status();
}

Status Archive::Scan::Cursor::skip_to(std::string_view id) {
  while (has_row && st.column_view(0) < id) FAILMAP_TRY(step());
  return ok_status();
}

Result<Archive::Scan> Archive::scan(ScanFields fields) {
  Scan scan;
  scan.m_archive = this;
  scan.m_fields = fields;
  auto prepare = [&](Scan::Cursor& cursor, std::string_view sql) -> Status {
    FAILMAP_TRY_ASSIGN(auto st, m_db.prepare(sql));
    cursor.st = std::move(st);
    return cursor.step();
  };
  FAILMAP_TRY(
      prepare(scan.m_cases, std::string("SELECT ") + k_case_columns + " FROM " + k_case_tables + " ORDER BY id"));
  FAILMAP_TRY(prepare(scan.m_published,
                      "SELECT case_id, strategy, exit_status, digest FROM published_runs ORDER BY case_id, strategy"));
  if (fields != ScanFields::Cases) {
    FAILMAP_TRY(prepare(scan.m_runs,
                        "SELECT r.case_id, r.strategy, r.actuals, r.exit_status, r.digest, g.failmap_version, "
                        "g.recorded_at, r.observation FROM runs r JOIN recordings g ON g.id = r.recording "
                        "ORDER BY r.case_id, r.strategy"));
  }
  if (fields == ScanFields::CasesRunsSeals) {
    FAILMAP_TRY(prepare(scan.m_seals, "SELECT case_id, salt, commitment FROM repair_salts ORDER BY case_id"));
    FAILMAP_TRY(prepare(scan.m_digests, "SELECT case_id, digest FROM case_digests ORDER BY case_id"));
  }
  return scan;
}

Status Archive::Scan::read(std::vector<ArchivedCase>& batch, std::size_t limit) {
  // The batch's cases are reused, so their strings keep their buffers.
  std::size_t n = 0;
  Status s = ok_status();
  for (; n < limit && m_cases.has_row; ++n) {
    if (n == batch.size()) batch.emplace_back();
    if (s = read_one(batch[n]); !s) break;
  }
  batch.resize(n);
  return s;
}

Status Archive::Scan::read_one(ArchivedCase& out) {
  Archive& a = *m_archive;
  Case& c = out.c;
  // Reused: clear what is appended to (copy_case_columns assigns the rest,
  // decode() the fixtures, decode_seal the seal).
  c.params.clear();
  c.evaluation_group.clear();
  c.published.runs.clear();
  out.runs.clear();
  a.copy_case_columns(m_cases.st, c, out.texts);
  out.decoded = false;
  std::string where = a.m_db.path() + ": case " + c.id;
  FAILMAP_TRY(m_published.skip_to(c.id));
  while (m_published.at(c.id)) {
    Statement& pr = m_published.st;
    auto k = parse_strategy(pr.column_text(1));
    if (!k) return input_error(where + ", published run: " + k.error().message);
    c.published.runs.push_back(PublishedRun{*k, static_cast<int>(pr.column_int(2)), pr.column_text(3)});
    FAILMAP_TRY(m_published.step());
  }
  std::sort(c.published.runs.begin(), c.published.runs.end(),
            [](const PublishedRun& x, const PublishedRun& y) { return x.strategy < y.strategy; });
  if (m_fields != ScanFields::Cases) {
    FAILMAP_TRY(m_runs.skip_to(c.id));
    while (m_runs.at(c.id)) {
      FAILMAP_TRY(a.decode_run_row(m_runs.st, 1, c.id, out.runs.emplace_back()));
      FAILMAP_TRY(m_runs.step());
    }
  }
  if (m_fields == ScanFields::CasesRunsSeals) {
    FAILMAP_TRY(m_seals.skip_to(c.id));
    if (!m_seals.at(c.id))
      return input_error(a.m_db.path() + ": case " + c.id + " has no repair salt (table repair_salts)");
    FAILMAP_TRY(a.decode_seal(m_seals.st, 1, c.id, out.seal));
    FAILMAP_TRY(m_seals.step());
    out.stored_case_digest.reset();
    FAILMAP_TRY(m_digests.skip_to(c.id));
    if (m_digests.at(c.id)) {
      FAILMAP_TRY_ASSIGN(auto hex, case_digest_hex(m_digests.st.column_blob(1), a.m_db.path(), c.id));
      out.stored_case_digest = std::move(hex);
      FAILMAP_TRY(m_digests.step());
    }
  }
  return m_cases.step();
}

Status Archive::Scan::decode(ArchivedCase& a) const {
  if (a.decoded) return ok_status();
  thread_local DecodeCache cache;  // per thread: the Scan's readers decode in parallel
  FAILMAP_TRY(decode_case_texts(a.texts, a.c, m_archive->m_db.path() + ": case " + a.c.id, &cache));
  a.decoded = true;
  return ok_status();
}

}  // namespace failmap
