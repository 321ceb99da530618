// What import keeps besides the current cases: the versions that
// `import --replace` replaced (the case_history table, schema/002) and the
// disagreements between a published page and failmap's computation recorded
// by `import --force` (import_disagreements). Read back by `history` and
// `verify`; nothing here changes a current case.
#include "store/archive.h"

#include "encoding/json.h"
#include "io/bundle.h"
#include "io/page.h"

namespace failmap {

Status Archive::save_history(const Case& old, const std::string& replaced_by, const std::string& replaced_at) {
  FAILMAP_TRY_ASSIGN(
      auto st,
      m_db.cached(
          "INSERT INTO case_history(case_id, version, record, replaced_at, replaced_by) "
          "VALUES (?1, (SELECT coalesce(max(version), 0) + 1 FROM case_history WHERE case_id = ?1), ?2, ?3, ?4)"));
  st->bind(1, old.id);
  st->bind(2, dump_compact(case_record(old, Tier::Member)));
  st->bind(3, replaced_at);
  st->bind(4, replaced_by);
  return st->run();
}

Result<std::vector<HistoryEntry>> Archive::history(const std::string& id) {
  FAILMAP_TRY_ASSIGN(
      auto st,
      m_db.cached(
          "SELECT version, record, replaced_at, replaced_by FROM case_history WHERE case_id = ?1 ORDER BY version"));
  st->bind(1, id);
  std::vector<HistoryEntry> out;
  FAILMAP_TRY(st->for_each_row([&]() -> Status {
    out.push_back(HistoryEntry{id, static_cast<int>(st->column_int(0)), st->column_text(1), st->column_text(2),
                               st->column_text(3)});
    return ok_status();
  }));
  st->reset();
  return out;
}

Status Archive::record_disagreement(const Disagreement& d) {
  FAILMAP_TRY_ASSIGN(
      auto st,
      m_db.cached("INSERT INTO import_disagreements(case_id, source, strategy, check_label, column_name, page_value, "
                  "computed_value) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  st->bind(1, d.case_id);
  st->bind(2, d.source);
  st->bind(3, strategy_name(d.strategy));
  st->bind(4, d.check);
  st->bind(5, d.column);
  st->bind(6, d.page_value);
  st->bind(7, d.computed_value);
  return st->run();
}

Result<std::vector<Disagreement>> Archive::disagreements(const std::string& id) {
  FAILMAP_TRY_ASSIGN(
      auto st,
      m_db.cached(
          "SELECT source, strategy, check_label, column_name, page_value, computed_value FROM import_disagreements "
          "WHERE case_id = ?1 ORDER BY rowid"));
  st->bind(1, id);
  std::vector<Disagreement> out;
  if (Status each = st->for_each_row([&]() -> Status {
        FAILMAP_TRY_ASSIGN(auto k, parse_strategy(st->column_text(1)));
        out.push_back(Disagreement{id, st->column_text(0), k, st->column_text(2), st->column_text(3),
                                   st->column_text(4), st->column_text(5)});
        return ok_status();
      });
      !each)
    return each.error();
  st->reset();
  return out;
}

}  // namespace failmap
