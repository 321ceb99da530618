// failmap's own digests (schema/DIGESTS.md). Published digests read from
// pages (Case::published) are never computed, compared or written here.
//
// Case digest: SHA-256 (lower-case hex) over the RFC 8785 form (encoding/jcs.h) of
//
//   {"scheme": "failmap-case-digest", "version": 1,
//    "case": <case_to_json(c) without "format", "format_version" and
//             "published"; every Python value (params values, fixture args
//             and expected) replaced by its Python JSON text as a string>,
//    "runs": {"<strategy>": {"exit_status": E, "observation": "<observation digest>"}, …}}
//
// Python values are digested as their json.dumps text because RFC 8785 maps
// 3 and 3.0, or 0 and -0.0, to one number while Python prints them apart.
// Field digests: for every member F of "case", SHA-256 over the RFC 8785 form
// of its value; they let `verify` name the field that changed.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "encoding/json.h"
#include "encoding/sha256.h"

namespace failmap {

/// Version of the case digest document ("version" member).
inline constexpr int k_case_digest_version = 1;
/// Version of the canonical repaired record ("version" member).
inline constexpr int k_repair_record_version = 1;

/// A recorded run as the case digest covers it.
struct RunDigestInput {
  StrategyKind strategy = StrategyKind::Broken;
  int exit_status = 0;
  std::string observation_digest;  ///< SHA-256 hex of the observation document
};

/// The "case" member of the digest document (see the file comment).
Json case_digest_record(const Case& c);

/// The whole case digest document; `runs` in any order (one per strategy).
Json case_digest_document(const Case& c, const std::vector<RunDigestInput>& runs);

/// The RFC 8785 text of case_digest_document(c, runs), written directly
/// (no JSON tree; the fast path of `verify`). Same bytes as
/// canonical_json(case_digest_document(c, runs)); an Error names the field
/// when a string is not valid UTF-8.
Result<std::string> case_digest_text(const Case& c, const std::vector<RunDigestInput>& runs);

/// The case digest: SHA-256 of case_digest_text(c, runs), 64 lower-case hex
/// digits (schema/DIGESTS.md). Errors as case_digest_text.
Result<std::string> case_digest(const Case& c, const std::vector<RunDigestInput>& runs);

/// A case's digests: the case digest and one digest per "case" member.
struct CaseDigests {
  std::string case_digest;                    ///< 64 lower-case hex
  Sha256Bytes case_digest_bytes{};            ///< the same as 32 bytes
  std::map<std::string, std::string> fields;  ///< member name → 64 lower-case hex (empty for FieldDigests::Packed)
  /// The member digests as archive.cc stores them (schema/007_case_texts.sql):
  /// pack_field_digests(fields, k_text_digest_fields) and (…,
  /// k_row_digest_fields), 256 bytes each; filled by every
  /// compute_case_digests.
  std::string text_packed, row_packed;
};

/// Which forms of the member digests compute_case_digests gives: both, or
/// only the packed bytes (import, which stores nothing else: no map of 16
/// hex strings per case).
enum class FieldDigests { MapAndPacked, Packed };

/// Computes both. Errors only when a value has no RFC 8785 form (an integer
/// beyond ±2^53 in a field other than the Python values, which are text).
Result<CaseDigests> compute_case_digests(const Case& c, const std::vector<RunDigestInput>& runs,
                                         FieldDigests forms = FieldDigests::MapAndPacked);

/// Field digests as version 3 of the schema stored them, and as `digest
/// regenerate` reports them: the RFC 8785 form of the object {member: digest}.
std::string field_digests_text(const CaseDigests& d);

/// field_digests_text of a {member: 64-hex digest} map.
std::string field_digests_text(const std::map<std::string, std::string>& fields);

/// The members of the digested case record whose digests are kept with the
/// shared texts (case_texts.field_digests, schema/007_case_texts.sql), in
/// the byte order of their names: the blob's order.
inline constexpr std::array<std::string_view, 8> k_text_digest_fields = {
    "contract", "failure", "root_cause", "scope", "summary", "title", "unsuccessful_approach", "why_it_matters"};

/// The other members, whose digests are kept per case (cases.field_digests,
/// schema/007_case_texts.sql), in the byte order of their names.
inline constexpr std::array<std::string_view, 8> k_row_digest_fields = {
    "evaluation_group", "fixtures", "id", "mechanism", "params", "recorded", "tier", "variant"};

/// The digests of `names` from `fields` (member → 64 lower-case hex) as raw
/// bytes, 32 per name in the order given (256 bytes for the arrays above);
/// `names` must be in byte order. A name without a digest (or with one that
/// is not 64 lower-case hex) is an Error naming it.
Result<std::string> pack_field_digests(const std::map<std::string, std::string>& fields,
                                       const std::array<std::string_view, 8>& names);

/// Adds the digests packed by pack_field_digests(…, names) to `fields` as
/// 64 lower-case hex. An Error names `where` when `bytes` is not 32 bytes per name.
Status unpack_field_digests(std::string_view bytes, const std::array<std::string_view, 8>& names,
                            const std::string& where, std::map<std::string, std::string>* fields);

/// Parses cases.field_digests text; an Error names `where` when it is not a
/// JSON object of 64-hex strings.
Result<std::map<std::string, std::string>> parse_field_digests(std::string_view text, const std::string& where);

/// A case's repair salt: 32 random bytes (OpenSSL RAND_bytes), created once
/// per case and kept in the archive (schema/004_repair_salts.sql) and the
/// member tier; never shown at the open tier.
using RepairSalt = std::array<unsigned char, 32>;

/// 32 fresh bytes from OpenSSL's CSPRNG; an Error when RAND_bytes fails
/// (no entropy source).
Result<RepairSalt> make_repair_salt();

/// The salt as 64 lower-case hex characters.
std::string salt_hex(const RepairSalt& salt);

/// Parses 64 lower-case hex characters; an Error names `where`.
Result<RepairSalt> parse_salt_hex(std::string_view hex, const std::string& where);

/// The repaired strategy's run over a case's fixtures, as a repair
/// commitment covers it.
struct RepairedRun {
  int exit_status = 0;
  std::string observation_digest;  ///< SHA-256 hex of the observation document
};

/// Runs the compiled repaired strategy over the case's fixtures (the run
/// `failmap run --strategy repaired` records). Errors as run_strategy.
Result<RepairedRun> replay_repaired(const Case& c);

/// The canonical repaired record (schema/DIGESTS.md "Repair commitments"):
/// the RFC 8785 text of
///   {"case": ID, "exit_status": E, "observation_digest": D,
///    "scheme": "failmap-repair", "source": PYTHON SOURCE, "strategy": "repaired", "version": 1}
/// with PYTHON SOURCE the compiled repaired strategy's reference source.
/// Errors: unknown mechanism, invalid UTF-8.
Result<std::string> canonical_repaired_record(const Case& c, const RepairedRun& run);

/// A repair commitment (schema/DIGESTS.md "Repair commitments"): SHA-256 hex
/// over the 32 salt bytes followed by the canonical repaired record.
std::string repair_commitment(const RepairSalt& salt, std::string_view canonical_repaired_record);

}  // namespace failmap
