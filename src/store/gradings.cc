#include "store/gradings.h"

#include "io/digest.h"

namespace failmap {

namespace {

// 64 hex characters as the 32 bytes SQLite stores.
Result<std::string> digest_bytes(const std::string& hex, const char* what) {
  auto bytes = parse_salt_hex(hex, std::string("grading record: ") + what);
  if (!bytes) return bytes.error();
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

constexpr std::size_t k_grading_batch = 256;

}  // namespace

Result<GradingRecord> GradingRecord::open(Archive& archive) {
  auto find = archive.db().prepare(
      "SELECT result FROM gradings WHERE case_digest = ?1 AND source_sha256 = ?2 AND settings = ?3");
  if (!find) return find.error();
  auto insert = archive.db().prepare(
      "INSERT OR REPLACE INTO gradings (case_digest, source_sha256, settings, result, graded_at) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!insert) return insert.error();
  return GradingRecord(archive, std::move(*find), std::move(*insert));
}

Result<std::optional<std::string>> GradingRecord::find(const std::string& case_digest, const std::string& source_sha256,
                                                       const std::string& settings) {
  auto c = digest_bytes(case_digest, "case digest");
  if (!c) return c.error();
  auto s = digest_bytes(source_sha256, "source SHA-256");
  if (!s) return s.error();
  m_find.reset();
  m_find.bind_blob(1, *c);
  m_find.bind_blob(2, *s);
  m_find.bind(3, settings);
  auto row = m_find.step();
  if (!row) return row.error();
  std::optional<std::string> out;
  if (*row) out = std::string(m_find.column_text(0));
  m_find.reset();
  return out;
}

Status GradingRecord::record(const std::string& case_digest, const std::string& source_sha256,
                             const std::string& settings, const std::string& judged) {
  auto c = digest_bytes(case_digest, "case digest");
  if (!c) return c.error();
  auto s = digest_bytes(source_sha256, "source SHA-256");
  if (!s) return s.error();
  if (!m_open) {
    if (auto st = m_archive->db().exec("BEGIN IMMEDIATE"); !st) return st;
    m_open = true;
  }
  m_insert.reset();
  m_insert.bind_blob(1, *c);
  m_insert.bind_blob(2, *s);
  m_insert.bind(3, settings);
  m_insert.bind(4, judged);
  m_insert.bind(5, utc_now_iso8601());
  if (auto st = m_insert.run(); !st) return st;
  if (++m_pending >= k_grading_batch) return finish();
  return ok_status();
}

Status GradingRecord::finish() {
  if (!m_open) return ok_status();
  m_open = false;
  m_pending = 0;
  return m_archive->db().exec("COMMIT");
}

}  // namespace failmap
