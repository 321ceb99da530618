// What the archive keeps to show a case unchanged: its repair seal (the
// repair_salts table: salt or published commitment, and the seal digest of
// schema/009) and failmap's case digest (the case_digests table) with the
// field digests of its rows (schema/007). Only storing and reading them:
// computing and checking digests is archive_digests.cc's (src/io/digest.h).
#include "store/archive.h"

#include <algorithm>
#include <set>

#include "encoding/sha256.h"
#include "store/archive_internal.h"

namespace failmap {

using archive_detail::case_digest_hex;
using archive_detail::digest_view;
using archive_detail::k_rows_per_insert;
using archive_detail::multi_row_insert;

Result<RepairSeal> Archive::repair_seal(const std::string& case_id) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT salt, commitment FROM repair_salts WHERE case_id = ?1"));
  st->bind(1, case_id);
  FAILMAP_TRY_ASSIGN(auto row, st->step());
  if (!row) return input_error(m_db.path() + ": case " + case_id + " has no repair salt (table repair_salts)");
  RepairSeal seal;
  Status s = decode_seal(*st, 0, case_id, seal);
  st->reset();
  if (!s) return s.error();
  return seal;
}

Status Archive::decode_seal(Statement& st, int first, const std::string& case_id, RepairSeal& seal) {
  seal = RepairSeal{};
  if (!st.column_is_null(first)) {
    std::string bytes = st.column_blob(first);
    if (bytes.size() != seal.salt.emplace().size())
      return input_error(m_db.path() + ": case " + case_id + ": repair salt is not 32 bytes");
    std::copy(bytes.begin(), bytes.end(), seal.salt->begin());
  }
  if (!st.column_is_null(first + 1)) {  // 32 bytes (schema/008), shown as hex
    std::string_view bytes = st.column_view(first + 1);
    if (bytes.size() != 32)
      return input_error(m_db.path() + ": case " + case_id + ": repair commitment is not 32 bytes");
    seal.commitment = to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  }
  return ok_status();
}

Status Archive::set_repair_seal(const std::string& case_id, const RepairSeal& seal) {
  return write_repair_seal("INSERT OR REPLACE", case_id, seal);
}

Result<Sha256Bytes> seal_digest(const RepairSeal& seal) {
  std::string text("failmap-seal-v1\0", 16);
  if (seal.salt) {
    text.append("salt\0", 5);
    text.append(reinterpret_cast<const char*>(seal.salt->data()), seal.salt->size());
  } else {
    Sha256Bytes commitment{};
    if (!parse_sha256_hex(seal.commitment, &commitment))
      return input_error("repair commitment '" + seal.commitment + "' is not a SHA-256 hex digest");
    text.append("commitment\0", 11);
    text.append(digest_view(commitment));
  }
  return sha256_bytes(text);
}

Status Archive::write_repair_seal(std::string_view verb, const std::string& case_id, const RepairSeal& seal) {
  FAILMAP_TRY_ASSIGN(
      auto st,
      m_db.cached(std::string(verb) +
                  (m_seal_digests ? " INTO repair_salts(case_id, salt, commitment, seal_digest) VALUES (?1, ?2, ?3, ?4)"
                                  : " INTO repair_salts(case_id, salt, commitment) VALUES (?1, ?2, ?3)")));
  Sha256Bytes commitment{};
  if (!seal.salt && !parse_sha256_hex(seal.commitment, &commitment))
    return input_error("case " + case_id + ": repair commitment '" + seal.commitment + "' is not a SHA-256 hex digest");
  auto digest = seal_digest(seal);
  if (!digest) return input_error("case " + case_id + ": " + digest.error().message);
  if (m_seal_digests) (st)->bind_blob_static(4, digest_view(*digest));
  st->bind_static(1, case_id);
  if (seal.salt)
    (st)->bind_blob_static(2, std::string_view(reinterpret_cast<const char*>(seal.salt->data()), seal.salt->size()));
  else (st)->bind_null(2);
  if (seal.salt) (st)->bind_null(3);
  else (st)->bind_blob_static(3, digest_view(commitment));
  if (auto s = st->run(); !s) return input_error("case " + case_id + ": repair salt: " + s.error().message);
  return ok_status();
}

Result<std::vector<SealMismatch>> Archive::seal_mismatches(const std::vector<std::string>& ids) {
  const std::set<std::string> wanted(ids.begin(), ids.end());
  FAILMAP_TRY_ASSIGN(auto st,
                     m_db.prepare("SELECT case_id, salt, commitment, seal_digest FROM repair_salts ORDER BY case_id"));
  std::vector<SealMismatch> out;
  if (Status each = st.for_each_row([&]() -> Status {
        std::string id = st.column_text(0);
        if (!wanted.empty() && !wanted.count(id)) return ok_status();
        RepairSeal seal;
        FAILMAP_TRY(decode_seal(st, 1, id, seal));
        auto digest = seal_digest(seal);
        if (!digest) return input_error(m_db.path() + ": case " + id + ": " + digest.error().message);
        const std::string recomputed = to_hex(digest->data(), digest->size());
        std::string stored = "null";
        if (!st.column_is_null(3)) {
          std::string_view bytes = st.column_view(3);
          stored = to_hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
        }
        if (stored != recomputed)
          out.push_back(
              SealMismatch{std::move(id), seal.salt ? "repair_salt" : "repair_commitment", stored, recomputed});
        return ok_status();
      });
      !each)
    return each.error();
  return out;
}

Status Archive::store_seal_digests(const std::vector<SealMismatch>& rows) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("UPDATE repair_salts SET seal_digest = ?2 WHERE case_id = ?1"));
  for (const SealMismatch& m : rows) {
    Sha256Bytes digest{};
    if (!parse_sha256_hex(m.recomputed, &digest)) return input_error("case " + m.case_id + ": seal digest is not hex");
    st->reset();
    st->bind(1, m.case_id);
    st->bind_blob(2, digest_view(digest));
    FAILMAP_TRY(st->run());
  }
  return ok_status();
}

Status Archive::set_case_digest_rows(const CaseDigestRow* rows, std::size_t count) {
  std::size_t last_size = 0;
  Statement* st = nullptr;
  for (std::size_t begin = 0; begin < count; begin += k_rows_per_insert) {
    std::size_t n = std::min(k_rows_per_insert, count - begin);
    if (n != last_size) {
      FAILMAP_TRY_ASSIGN(
          st, m_db.cached(multi_row_insert("INSERT OR REPLACE INTO case_digests(case_id, digest)", n, "", 2, 1)));
      last_size = n;
    }
    for (std::size_t i = 0; i < n; ++i) {
      st->bind_static(static_cast<int>(1 + 2 * i), rows[begin + i].case_id);
      st->bind_blob_static(static_cast<int>(2 + 2 * i), digest_view(*rows[begin + i].digest));
    }
    FAILMAP_TRY(st->run());
  }
  return ok_status();
}

Status Archive::set_case_digest(const std::string& id, const Sha256Bytes& case_digest) {
  CaseDigestRow row{id, &case_digest};
  return set_case_digest_rows(&row, 1);
}

Status Archive::set_case_digest(const std::string& id, std::string_view case_digest_hex) {
  Sha256Bytes d{};
  if (!parse_sha256_hex(case_digest_hex, &d))
    return input_error("case " + id + ": case digest '" + std::string(case_digest_hex) +
                       "' is not a SHA-256 hex digest");
  return set_case_digest(id, d);
}

Status Archive::set_case_digests(const std::string& id, const CaseDigests& d) {
  FAILMAP_TRY_ASSIGN(auto row, pack_field_digests(d.fields, k_row_digest_fields));
  FAILMAP_TRY_ASSIGN(auto text, pack_field_digests(d.fields, k_text_digest_fields));
  {
    FAILMAP_TRY_ASSIGN(auto st, m_db.cached("UPDATE cases SET field_digests = ?2 WHERE id = ?1"));
    st->bind(1, id);
    st->bind_blob(2, row);
    FAILMAP_TRY(st->run());
  }
  {
    // Every case sharing the row has the same texts, so the same digests.
    m_insert_memo.text_id = 0;
    FAILMAP_TRY_ASSIGN(
        auto st,
        m_db.cached(
            "UPDATE case_texts SET field_digests = ?2 WHERE text_id = (SELECT text_id FROM cases WHERE id = ?1)"));
    st->bind(1, id);
    st->bind_blob(2, text);
    FAILMAP_TRY(st->run());
  }
  return set_case_digest(id, d.case_digest);
}

Result<std::optional<std::string>> Archive::case_digest(const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT digest FROM case_digests WHERE case_id = ?1"));
  st->bind(1, id);
  FAILMAP_TRY_ASSIGN(auto r, st->step());
  if (!r) return std::optional<std::string>();
  std::string bytes = st->column_blob(0);
  st->reset();
  FAILMAP_TRY_ASSIGN(auto hex, case_digest_hex(bytes, m_db.path(), id));
  return std::optional<std::string>(std::move(hex));
}

}  // namespace failmap
