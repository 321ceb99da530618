// Shared by the files that implement store/archive_digests.h (archive_digests.cc, verify.cc,
// regenerate.cc) and by nothing else: reading a case's stored field digests,
// the two blobs of schema/007 merged by member name. Not part of the
// interface (store/archive_digests.h is).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/archive.h"

namespace failmap::digests_detail {

/// The two field-digest blobs of a case (schema/007): its row's, NULL until
/// computed (nullopt), and its case_texts row's.
struct FieldDigestBlobs {
  std::optional<std::string> row;
  std::string text;
};

/// The blobs of case `id`; nullopt when there is no such case.
Result<std::optional<FieldDigestBlobs>> read_field_digest_blobs(Archive& archive, const std::string& id);

/// The stored field digests of a case from its two blobs, merged by member
/// name; nullopt when the row's is NULL. Errors (prefixed by `where`, "ARCHIVE:
/// case ID") as unpack_field_digests.
Result<std::optional<std::map<std::string, std::string>>> stored_field_digests(const std::optional<std::string>& row,
                                                                               std::string_view text,
                                                                               const std::string& where);

/// The cases other than `id` that share its case_texts row (schema/007: one
/// row of texts kept for every case whose texts are equal), in id order.
/// Regenerating one of them changes what the others' digests cover, so
/// regenerate refuses without them and its advice names them.
Result<std::vector<std::string>> cases_sharing_texts(Archive& archive, const std::string& id);

}  // namespace failmap::digests_detail
