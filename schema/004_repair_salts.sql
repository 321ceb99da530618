-- failmap archive schema, version 4: repair commitments (schema/DIGESTS.md
-- "Repair commitments"). One row per case. `salt` is 32 random bytes from
-- OpenSSL RAND_bytes, made once when the case is inserted (failmap fills the
-- cases that exist when this migration runs) and exported only at the member
-- tier; the open tier carries SHA-256(salt || canonical repaired record).
-- `commitment` is set instead of `salt` for a case imported from an open
-- bundle, whose salt this archive never saw: the published commitment is
-- kept verbatim so re-exports stay byte-identical.
CREATE TABLE repair_salts (
  case_id    TEXT PRIMARY KEY REFERENCES cases(id) ON DELETE CASCADE,
  salt       BLOB CHECK (salt IS NULL OR length(salt) = 32),
  commitment TEXT CHECK (commitment IS NULL OR (length(commitment) = 64 AND commitment NOT GLOB '*[^0-9a-f]*')),
  CHECK ((salt IS NULL) <> (commitment IS NULL))
) WITHOUT ROWID;
