// The archive as `failmap grade` and `failmap serve --record` hand it to the
// grading code: opened when first needed (LazyArchive), its cases behind
// grade/'s CaseLookup interface (ArchiveCases), and its record of
// gradings (store/gradings.h) behind grade/'s GradingCache interface
// (ArchiveGradingCache), so that grade/ and serve/ reach the record without
// knowing the store.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "cli/cli.h"
#include "grade/grading.h"
#include "store/archive.h"
#include "store/gradings.h"

namespace failmap::cli {

/// The archive named by --db, opened in `mode` at the first get() (so that
/// a predictions file's own problems are found and named first).
class LazyArchive {
 public:
  LazyArchive(const Context& ctx, Archive::Mode mode) : m_ctx(ctx), m_mode(mode) {}
  /// The open archive. Errors: the archive cannot be opened (or migrated, read-write).
  Result<Archive*> get();
  /// Its path, as messages name it.
  std::string path();

 private:
  const Context& m_ctx;
  Archive::Mode m_mode;
  std::optional<Archive> m_archive;
};

/// The archive's cases, as the grading workflow asks for them: a case and
/// its stored case digest ("" when the archive keeps none), by id.
class ArchiveCases final : public CaseLookup {
 public:
  explicit ArchiveCases(LazyArchive& archive) : m_archive(archive) {}
  Result<std::optional<std::pair<Case, std::string>>> find_case(const std::string& id) override;
  std::string name() const override { return m_archive.path(); }

 private:
  LazyArchive& m_archive;
};

/// The archive's record of gradings (store/gradings.h GradingRecord) as the
/// grading workflow's cache, its statements prepared at open() or the first
/// lookup. Keeps what record() is given in memory and writes it in one short
/// transaction every 256 gradings or 2 s and at finish() (GradingRecord), so
/// the archive's write lock is never held while a candidate runs. Call from
/// one thread at a time. A LazyArchive opened read-write records; one opened
/// read-only only looks up.
class ArchiveGradingCache final : public GradingCache {
 public:
  explicit ArchiveGradingCache(LazyArchive& archive) : m_archive(archive) {}
  Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                          const std::string& settings) override;
  Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                const std::string& judged) override;
  Status finish() override;
  /// Opens the archive and prepares the record's statements now. Errors:
  /// the archive's (it cannot be opened, Kind::Busy while it is migrated).
  Status open();

 private:
  LazyArchive& m_archive;
  std::optional<GradingRecord> m_record;
};

}  // namespace failmap::cli
