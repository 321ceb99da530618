-- failmap archive schema, version 7: a case's prose is kept once per
-- distinct text, and field digests are raw bytes.
--
-- Every variant of a mechanism (instantiate N=1..100000) repeats the same
-- title and seven prose fields, about 1 KB, and version 3 stored the field
-- digests as about 1.2 KB of hex JSON per case: with both, a case row was
-- 2.7 KB, one row per 4 KiB page, and import and export moved 4.4 KB per case.
--
-- case_texts    one row per distinct (title, prose) tuple, shared by every
--               case whose texts are equal; `field_digests` holds the
--               SHA-256 of each text member as 8 raw 32-byte digests in the
--               order of k_text_digest_fields (src/io/digest.h):
--                 contract, failure, root_cause, scope, summary, title,
--                 unsuccessful_approach, why_it_matters
--               and also finds the row of a text (index, not unique: two
--               rows may hold one text, e.g. after hand edits).
-- cases         loses those eight columns for `text_id`; its
--               `field_digests` becomes 8 raw 32-byte digests of the other
--               members, in the order of k_row_digest_fields:
--                 evaluation_group, fixtures, id, mechanism, params,
--                 recorded, tier, variant
--               (NULL until computed, as before).
--
-- The digests are those of schema/DIGESTS.md, unchanged; only their storage
-- changes. The full {member: digest} object of version 3, e.g. for `verify`,
-- is both blobs merged by member name. Read with SQL, e.g.
--   SELECT c.id, t.summary, lower(hex(substr(t.field_digests, 1 + 32 * 4, 32))) AS summary_digest
--     FROM cases c JOIN case_texts t USING (text_id);
--
-- Applied by src/store/archive.cc with foreign keys off (the cases table is
-- rebuilt, and dropping the old one must not cascade to its runs, digests,
-- salts and published digests; PRAGMA foreign_key_check runs before the
-- commit). Archive::split_case_texts fills case_texts and cases_v7 from the
-- old rows, computing each text member's digest (the old field_digests
-- object may be NULL or edited by hand, so it is not trusted for texts),
-- and keeping each row member's digest from the old object when present.

CREATE TABLE case_texts (
  text_id               INTEGER PRIMARY KEY,
  title                 TEXT NOT NULL,
  summary               TEXT NOT NULL,
  root_cause            TEXT NOT NULL,
  failure               TEXT NOT NULL,
  unsuccessful_approach TEXT NOT NULL,
  contract              TEXT NOT NULL,
  why_it_matters        TEXT NOT NULL,
  scope                 TEXT NOT NULL,
  field_digests         BLOB NOT NULL CHECK (length(field_digests) = 256)
) STRICT;
CREATE INDEX case_texts_by_digests ON case_texts(field_digests);

CREATE TABLE cases_v7 (
  id                    TEXT PRIMARY KEY,
  mechanism_id          TEXT NOT NULL REFERENCES mechanisms(id),
  variant               INTEGER NOT NULL CHECK (variant BETWEEN 1 AND 99),
  tier                  TEXT NOT NULL CHECK (tier IN ('open', 'member')),
  text_id               INTEGER NOT NULL REFERENCES case_texts(text_id),
  params                TEXT NOT NULL,     -- JSON object {"N": 1}, binding order
  evaluation_group      TEXT NOT NULL,     -- JSON array, sorted
  recorded_runtime      TEXT NOT NULL,     -- as published, e.g. "Python 3.12.14"
  recorded_at           TEXT NOT NULL,     -- as published, ISO 8601
  published_case_digest TEXT NOT NULL,     -- verbatim from the page; '' if none
  fixture_labels        TEXT NOT NULL,     -- schema/006_case_fixtures.sql
  fixture_values        TEXT NOT NULL,
  field_digests         BLOB CHECK (field_digests IS NULL OR length(field_digests) = 256)
) STRICT;
