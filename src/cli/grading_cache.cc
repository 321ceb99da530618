#include "cli/grading_cache.h"

#include "cli/common.h"

namespace failmap::cli {

Result<Archive*> LazyArchive::get() {
  if (!m_archive) {
    FAILMAP_TRY_ASSIGN(auto a, open_archive(m_ctx, m_mode));
    m_archive.emplace(std::move(a));
  }
  return &*m_archive;
}

std::string LazyArchive::path() { return m_archive ? m_archive->db().path() : m_ctx.db_path; }

Result<std::optional<std::pair<Case, std::string>>> ArchiveCases::find_case(const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto a, m_archive.get());
  FAILMAP_TRY_ASSIGN(auto c, a->load_case(id));
  if (!c) return std::optional<std::pair<Case, std::string>>();
  FAILMAP_TRY_ASSIGN(auto digest, a->case_digest(id));
  return std::optional<std::pair<Case, std::string>>(std::pair{std::move(*c), digest.value_or("")});
}

Result<std::optional<std::string>> ArchiveGradingCache::find(const std::string& case_digest,
                                                             const std::string& source_sha256,
                                                             const std::string& settings) {
  FAILMAP_TRY(open());
  return m_record->find(case_digest, source_sha256, settings);
}

Status ArchiveGradingCache::record(const std::string& case_digest, const std::string& source_sha256,
                                   const std::string& settings, const std::string& judged) {
  FAILMAP_TRY(open());
  return m_record->record(case_digest, source_sha256, settings, judged);
}

Status ArchiveGradingCache::finish() { return m_record ? m_record->finish() : ok_status(); }

Status ArchiveGradingCache::open() {
  if (m_record) return ok_status();
  FAILMAP_TRY_ASSIGN(auto a, m_archive.get());
  FAILMAP_TRY_ASSIGN(auto r, GradingRecord::open(*a));
  m_record.emplace(std::move(r));
  return ok_status();
}

}  // namespace failmap::cli
