-- failmap archive schema, version 8: a repair commitment is kept as its 32
-- digest bytes, like every other stored digest (case_digests, runs,
-- field_digests), instead of 64 hex characters.
--
-- Version 4 checked the hex text with `commitment NOT GLOB '*[^0-9a-f]*'`.
-- SQLite evaluates that pattern once per character of the value, about 29,000
-- instructions for each row written: a fifth of everything an import's
-- writing thread did per case. A blob's check is its length.
--
-- repair_salts   case_id, salt (32 bytes) as before; commitment becomes a
--                BLOB of 32 bytes (NULL when the case has its salt). Read
--                as hex with lower(hex(commitment)), which is what a bundle
--                or page publishes (schema/DIGESTS.md "Repair commitments").
--
-- The rows are copied by src/store/archive.cc (Archive::commitments_to_bytes:
-- SQLite 3.40 has no unhex()); this file makes the new table, the code
-- copies each row and then replaces the old table by it. The table is a
-- child only (nothing references it), so foreign keys stay on.
CREATE TABLE repair_salts_v8 (
  case_id    TEXT PRIMARY KEY REFERENCES cases(id) ON DELETE CASCADE,
  salt       BLOB CHECK (salt IS NULL OR length(salt) = 32),
  commitment BLOB CHECK (commitment IS NULL OR length(commitment) = 32),
  CHECK ((salt IS NULL) <> (commitment IS NULL))
) STRICT, WITHOUT ROWID;
