-- failmap archive schema, version 2: import history (the versions
-- `import --replace` replaced).

-- Versions of a case replaced by `failmap import --replace`, oldest first.
-- `record` is the replaced version as a member-tier bundle case record
-- (schema/BUNDLE.md), so nothing of it is lost. Not tied to cases(id) by a
-- foreign key: the history outlives later deletions. Shown by
-- `failmap history CASE`.
CREATE TABLE case_history (
  case_id     TEXT NOT NULL,
  version     INTEGER NOT NULL CHECK (version >= 1),  -- 1 = first version replaced
  record      TEXT NOT NULL,                          -- dump_compact JSON of the case record
  replaced_at TEXT NOT NULL,                          -- UTC time of the replacement
  replaced_by TEXT NOT NULL,                          -- the input that replaced it
  PRIMARY KEY (case_id, version)
) STRICT, WITHOUT ROWID;

-- Cells where a published page and failmap's computation disagreed, kept for
-- pages imported with `failmap import --force` (one row per cell or exit
-- status). Dropped with the case.
CREATE TABLE import_disagreements (
  case_id        TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  source         TEXT NOT NULL,   -- page path and line
  strategy       TEXT NOT NULL CHECK (strategy IN ('broken', 'unsuccessful', 'repaired')),
  check_label    TEXT NOT NULL,   -- fixture label; '' for the exit status
  column_name    TEXT NOT NULL,   -- Boundary fixture | Actual | Expected | Outcome | Exit
  page_value     TEXT NOT NULL,
  computed_value TEXT NOT NULL
) STRICT;
CREATE INDEX import_disagreements_by_case ON import_disagreements(case_id);
