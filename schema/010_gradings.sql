-- failmap archive schema, version 10: gradings recorded by `failmap grade`
-- (schema/GRADING.md "Recording"). Grading the same source against an
-- unchanged case with the same settings again is a lookup, marked
-- "cached": true in its results line.
--
-- gradings   case_digest (32 bytes: the archive's case digest when graded,
--            so a changed case is graded anew), source_sha256 (32 bytes:
--            SHA-256 of the candidate's source), settings (what else the
--            result depends on, as text: held-out bindings, limits, sandbox,
--            failmap version), result (the judged members of the results
--            line, compact JSON: verdict .. sandbox), graded_at (UTC).
--            Keyed by content, never by a run or model name.
-- IF NOT EXISTS: an archive copied from a newer one and labelled older
-- (as tests make old archives) may hold the table already; it is the same.
CREATE TABLE IF NOT EXISTS gradings (
  case_digest   BLOB NOT NULL CHECK (length(case_digest) = 32),
  source_sha256 BLOB NOT NULL CHECK (length(source_sha256) = 32),
  settings      TEXT NOT NULL,
  result        TEXT NOT NULL,
  graded_at     TEXT NOT NULL,
  PRIMARY KEY (case_digest, source_sha256, settings)
) STRICT, WITHOUT ROWID;
