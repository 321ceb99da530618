// Opening an archive (Archive::open: the connection, then migrate() from
// migrations.cc) and the questions about the archive as a whole:
// which cases it holds, how many, their summaries for `list`, rows left
// without a case. Reading or writing one case's rows is case_rows.cc's;
// runs, seals, scans and history have files of their own.
#include "store/archive.h"

#include <chrono>
#include <ctime>

namespace failmap {

std::string utc_now_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<Archive> Archive::open(const std::string& path, Mode mode) {
  FAILMAP_TRY_ASSIGN(auto db, Database::open(path, mode));
  Archive a(std::move(db));
  FAILMAP_TRY(a.migrate(mode));
  return a;
}

Result<std::vector<std::string>> Archive::case_ids() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT id FROM cases ORDER BY id"));
  std::vector<std::string> out;
  FAILMAP_TRY(st.for_each_row([&]() -> Status {
    out.push_back(st.column_text(0));
    return ok_status();
  }));
  return out;
}

Result<std::vector<CaseSummary>> Archive::list_cases() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT c.id, c.mechanism_id, c.variant, t.title, c.tier, c.params, "
                                           "(SELECT count(*) FROM runs r WHERE r.case_id = c.id), c.evaluation_group "
                                           "FROM cases c CROSS JOIN case_texts t "
                                           "USING (text_id) "
                                           "ORDER BY c.id"));
  std::vector<CaseSummary> out;
  FAILMAP_TRY(st.for_each_row([&]() -> Status {
    CaseSummary s;
    s.id = st.column_text(0);
    s.mechanism = st.column_text(1);
    s.variant = static_cast<int>(st.column_int(2));
    s.title = st.column_text(3);
    s.tier = st.column_text(4) == "member" ? Tier::Member : Tier::Open;
    s.params = st.column_text(5);
    s.runs = static_cast<int>(st.column_int(6));
    s.evaluation_group = st.column_text(7);
    out.push_back(std::move(s));
    return ok_status();
  }));
  return out;
}

Result<std::map<std::string, std::int64_t>> Archive::case_counts_by_mechanism() {
  FAILMAP_TRY_ASSIGN(
      auto st, m_db.prepare("SELECT mechanism_id, count(*) FROM cases GROUP BY mechanism_id ORDER BY mechanism_id"));
  std::map<std::string, std::int64_t> out;
  FAILMAP_TRY(st.for_each_row([&]() -> Status {
    out.emplace(st.column_text(0), st.column_int(1));
    return ok_status();
  }));
  return out;
}

Result<std::array<std::int64_t, 3>> Archive::run_counts() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT strategy, count(*) FROM runs GROUP BY strategy"));
  std::array<std::int64_t, 3> out{};
  if (Status each = st.for_each_row([&]() -> Status {
        const std::int64_t k = st.column_int(0);
        if (k < 0 || k > 2)
          return input_error(m_db.path() + ": runs table: strategy " + std::to_string(k) + " is not 0, 1 or 2");
        out[static_cast<std::size_t>(k)] = st.column_int(1);
        return ok_status();
      });
      !each)
    return each.error();
  return out;
}

Result<std::int64_t> Archive::case_count() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT count(*) FROM cases"));
  FAILMAP_TRY(st.step());
  return st.column_int(0);
}

Result<std::vector<std::pair<std::string, std::string>>> Archive::orphan_rows() {
  static constexpr const char* k_tables[] = {"case_digests", "import_disagreements", "published_runs", "repair_salts",
                                             "runs"};
  std::string sql;
  for (const char* t : k_tables)
    sql += std::string(sql.empty() ? "" : " UNION ") + "SELECT case_id, '" + t + "' FROM " + t +
           " WHERE case_id NOT IN (SELECT id FROM cases)";
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare(sql + " ORDER BY 1, 2"));
  std::vector<std::pair<std::string, std::string>> out;
  FAILMAP_TRY(st.for_each_row([&]() -> Status {
    out.emplace_back(st.column_text(0), st.column_text(1));
    return ok_status();
  }));
  return out;
}

Result<bool> Archive::has_cases() {
  FAILMAP_TRY_ASSIGN(auto st, m_db.prepare("SELECT EXISTS (SELECT 1 FROM cases)"));
  FAILMAP_TRY(st.step());
  return st.column_int(0) != 0;
}

}  // namespace failmap
