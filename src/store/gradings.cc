#include "store/gradings.h"

#include <chrono>

#include "encoding/sha256.h"
#include "io/digest.h"

namespace failmap {

namespace {

// 64 hex characters as the 32 bytes SQLite stores.
Result<std::string> digest_bytes(const std::string& hex, const char* what) {
  FAILMAP_TRY_ASSIGN(auto bytes, parse_salt_hex(hex, std::string("grading record: ") + what));
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr std::size_t k_grading_batch = 256;
constexpr std::int64_t k_grading_flush_ms = 2000;

}  // namespace

Result<GradingRecord> GradingRecord::open(Archive& archive) {
  FAILMAP_TRY_ASSIGN(
      auto find, archive.db().prepare(
                     "SELECT result FROM gradings WHERE case_digest = ?1 AND source_sha256 = ?2 AND settings = ?3"));
  archive.db().release_reads();
  GradingRecord r(archive, std::move(find));
  r.m_last_flush_ms = now_ms();
  return r;
}

Result<std::optional<std::string>> GradingRecord::find(const std::string& case_digest, const std::string& source_sha256,
                                                       const std::string& settings) {
  FAILMAP_TRY_ASSIGN(auto c, digest_bytes(case_digest, "case digest"));
  FAILMAP_TRY_ASSIGN(auto s, digest_bytes(source_sha256, "source SHA-256"));
  if (auto it = m_pending.find(Key{c, s, settings}); it != m_pending.end()) return std::optional(it->second);
  m_find.reset();
  m_find.bind_blob(1, c);
  m_find.bind_blob(2, s);
  m_find.bind(3, settings);
  FAILMAP_TRY_ASSIGN(auto row, m_find.step());
  std::optional<std::string> out;
  if (row) out = std::string(m_find.column_text(0));
  m_find.reset();  // ends the read: no snapshot held between lookups
  return out;
}

Status GradingRecord::record(const std::string& case_digest, const std::string& source_sha256,
                             const std::string& settings, const std::string& judged) {
  FAILMAP_TRY_ASSIGN(auto c, digest_bytes(case_digest, "case digest"));
  FAILMAP_TRY_ASSIGN(auto s, digest_bytes(source_sha256, "source SHA-256"));
  m_pending[Key{std::move(c), std::move(s), settings}] = judged;
  if (m_pending.size() >= k_grading_batch || now_ms() - m_last_flush_ms >= k_grading_flush_ms) return flush();
  return ok_status();
}

Status GradingRecord::flush() {
  m_last_flush_ms = now_ms();
  if (m_pending.empty()) return ok_status();
  Database& db = m_archive->db();
  Transaction tx(db);
  FAILMAP_TRY(tx.begin());
  FAILMAP_TRY_ASSIGN(auto insert, db.cached("INSERT OR REPLACE INTO gradings (case_digest, source_sha256, settings, "
                                            "result, graded_at) VALUES (?1, ?2, ?3, "
                                            "?4, ?5)"));
  const std::string now = utc_now_iso8601();
  for (const auto& [key, judged] : m_pending) {
    Statement& st = *insert;
    st.reset();
    st.bind_blob(1, std::get<0>(key));
    st.bind_blob(2, std::get<1>(key));
    st.bind(3, std::get<2>(key));
    st.bind(4, judged);
    st.bind(5, now);
    FAILMAP_TRY(st.run());
  }
  FAILMAP_TRY(tx.commit());
  m_pending.clear();
  m_last_flush_ms = now_ms();
  return ok_status();
}

Result<std::uint64_t> forget_gradings(Archive& archive, const ForgetFilter& filter) {
  Database& db = archive.db();
  Transaction tx(db);
  FAILMAP_TRY(tx.begin());
  std::uint64_t deleted = 0;
  auto run = [&](const std::string& sql, const std::string* bind) -> Status {
    FAILMAP_TRY_ASSIGN(auto st, db.prepare(sql));
    if (bind) st.bind(1, *bind);
    FAILMAP_TRY(st.run());
    deleted += static_cast<std::uint64_t>(sqlite3_changes64(db.handle()));
    return ok_status();
  };
  if (filter.all) {
    FAILMAP_TRY(run("DELETE FROM gradings", nullptr));
  } else {
    for (const std::string& id : filter.case_ids) {
      FAILMAP_TRY_ASSIGN(auto has, archive.has_case(id));
      if (!has)
        return input_error("grade forget: no case " + id + " in " + db.path() + " (`failmap list` shows its cases)");
      if (auto s =
              run("DELETE FROM gradings WHERE case_digest = (SELECT digest FROM case_digests WHERE case_id = ?1)", &id);
          !s)
        return s.error();
    }
    if (filter.stale)
      FAILMAP_TRY(run("DELETE FROM gradings WHERE case_digest NOT IN (SELECT digest FROM case_digests)", nullptr));
  }
  FAILMAP_TRY(tx.commit());
  return deleted;
}

Status for_each_grading(Archive& archive, const std::function<Status(const RecordedGrading&)>& fn) {
  Database& db = archive.db();
  FAILMAP_TRY_ASSIGN(auto st, db.prepare("SELECT g.case_digest, g.source_sha256, g.settings, g.result, g.graded_at, "
                                         "(SELECT min(d.case_id) FROM case_digests d WHERE d.digest = g.case_digest) "
                                         "FROM gradings g ORDER BY g.case_digest, g.source_sha256, g.settings"));
  return st.for_each_row([&]() -> Status {
    RecordedGrading g;
    std::string c = st.column_blob(0), s = st.column_blob(1);
    if (c.size() != 32 || s.size() != 32)
      return input_error(db.path() + ": table gradings: a row whose case_digest or source_sha256 is not 32 bytes");
    g.case_digest = to_hex(reinterpret_cast<const unsigned char*>(c.data()), c.size());
    g.source_sha256 = to_hex(reinterpret_cast<const unsigned char*>(s.data()), s.size());
    g.settings = st.column_text(2);
    g.result = st.column_text(3);
    g.graded_at = st.column_text(4);
    if (!st.column_is_null(5)) g.case_id = st.column_text(5);
    return fn(g);
  });
}

}  // namespace failmap
