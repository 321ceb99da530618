// Shared by the files that implement Archive (archive.cc, case_rows.cc,
// migrations.cc, runs.cc, scan.cc, seals.cc) and by nothing else: the case
// columns every case query selects, how a digest is bound as a blob, and the
// multi-row INSERT of runs and case digests. Not part of the archive's
// interface (store/archive.h is).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"
#include "encoding/sha256.h"

namespace failmap::archive_detail {

/// A SHA-256 digest as the 32-byte blob SQLite stores.
inline std::string_view digest_view(const Sha256Bytes& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

#define FAILMAP_CASE_COLUMNS                                                                                \
  "id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, " \
  "why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, published_case_digest, " \
  "fixture_labels, fixture_values"
inline constexpr const char* k_case_columns = FAILMAP_CASE_COLUMNS;
// The tables FAILMAP_CASE_COLUMNS come from (schema/007). CROSS JOIN keeps
// cases the outer loop, so ORDER BY id streams from its index instead of
// sorting: SQLite would otherwise start from the few case_texts rows.
#define FAILMAP_CASE_TABLES "cases CROSS JOIN case_texts USING (text_id)"
inline constexpr const char* k_case_tables = FAILMAP_CASE_TABLES;

/// A case_digests.digest value (32 bytes, schema/DIGESTS.md) as 64 hex
/// digits; an Error naming the archive and the case otherwise.
inline Result<std::string> case_digest_hex(std::string_view bytes, const std::string& archive_path,
                                           const std::string& id) {
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() != 32)
    return input_error(archive_path + ": case " + id + ", field case_digest: '" + to_hex(data, bytes.size()) +
                       "' is not a SHA-256 digest (32 bytes)");
  return to_hex(data, bytes.size());
}

/// Rows per multi-row INSERT of run --all: one statement step writes 32
/// cases' runs (or 96 case digests) instead of one each.
inline constexpr std::size_t k_rows_per_insert = 96;

/// "INSERT ... VALUES (?s, ?f, ?f+1, ...), ..." : `rows` rows, each the
/// `shared` parameters (bound once per statement) followed by `width` fresh
/// ones numbered from `first`.
inline std::string multi_row_insert(std::string_view head, std::size_t rows, std::string_view shared, int width,
                                    int first) {
  std::string sql(head);
  sql += " VALUES ";
  int p = first;
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r ? ", (" : "(";
    sql += shared;
    for (int k = 0; k < width; ++k) {
      if (k) sql += ", ";
      sql += '?';
      sql += std::to_string(p++);
    }
    sql += ')';
  }
  return sql;
}

}  // namespace failmap::archive_detail
