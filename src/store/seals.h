// A case's repair seal as the archive keeps it (the repair_salts table) and
// its seal digest (schema/009_seal_digests.sql). Stored and read by the
// Archive members of store/seals.cc.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "encoding/sha256.h"
#include "io/digest.h"

namespace failmap {

/// What the archive keeps for a case's repair commitment (the
/// `repair_salts` table): its salt, or, for a case imported from an open
/// bundle whose salt was never seen, the published commitment verbatim.
struct RepairSeal {
  std::optional<RepairSalt> salt;
  std::string commitment;  ///< 64 hex; set only when `salt` is absent
};

/// The seal digest of `seal` (schema/009_seal_digests.sql, schema/DIGESTS.md
/// "Seal digests"): SHA-256 over "failmap-seal-v1" 0x00, then "salt" 0x00 and
/// the 32 salt bytes, or "commitment" 0x00 and the 32 commitment bytes. An
/// Error when the commitment is not 64 lower-case hex.
Result<Sha256Bytes> seal_digest(const RepairSeal& seal);

/// A repair_salts row whose stored seal digest is not the digest of its
/// salt or commitment (Archive::seal_mismatches): hex of both, "null" for a
/// stored NULL; `what` is "repair_salt" or "repair_commitment", the member
/// the row holds.
struct SealMismatch {
  std::string case_id;
  std::string what;
  std::string stored;
  std::string recomputed;
};

}  // namespace failmap
