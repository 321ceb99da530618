-- failmap archive schema, version 1 (PRAGMA user_version = 1).
-- Applied by src/store/archive.cc in file-name order; never edit a released
-- migration, add NNN_*.sql instead. JSON values (fixture arguments, expected
-- and actual values, parameter bindings) are stored as their JSON text in
-- STRICT TEXT columns, never REAL, so 4.0 vs 4, -0.0, 1e16 and integers
-- beyond 2^53 survive byte for byte.

-- Compiled-in mechanisms referenced by cases (copied from the registry).
CREATE TABLE mechanisms (
  id               TEXT PRIMARY KEY,
  title            TEXT NOT NULL,
  evaluation_group TEXT NOT NULL           -- JSON array of tags
) STRICT;

CREATE TABLE cases (
  id                    TEXT PRIMARY KEY,
  mechanism_id          TEXT NOT NULL REFERENCES mechanisms(id),
  variant               INTEGER NOT NULL CHECK (variant BETWEEN 1 AND 99),
  title                 TEXT NOT NULL,
  tier                  TEXT NOT NULL CHECK (tier IN ('open', 'member')),
  summary               TEXT NOT NULL,
  root_cause            TEXT NOT NULL,
  failure               TEXT NOT NULL,
  unsuccessful_approach TEXT NOT NULL,
  contract              TEXT NOT NULL,
  why_it_matters        TEXT NOT NULL,
  scope                 TEXT NOT NULL,
  params                TEXT NOT NULL,     -- JSON object {"N": 1}, binding order
  evaluation_group      TEXT NOT NULL,     -- JSON array, sorted
  recorded_runtime      TEXT NOT NULL,     -- as published, e.g. "Python 3.12.14"
  recorded_at           TEXT NOT NULL,     -- as published, ISO 8601
  published_case_digest TEXT NOT NULL,     -- verbatim from the page; '' if none
  case_digest           TEXT               -- failmap's own (schema/DIGESTS.md); NULL until computed
) STRICT;
CREATE INDEX cases_by_mechanism ON cases(mechanism_id, id);

CREATE TABLE fixtures (
  case_id  TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,               -- 0-based, page order
  label    TEXT NOT NULL,
  args     TEXT NOT NULL,                  -- JSON array of solve() arguments
  expected TEXT NOT NULL,                  -- JSON value
  PRIMARY KEY (case_id, position)
) STRICT, WITHOUT ROWID;

-- Digests printed on a published page, per implementation section, verbatim.
CREATE TABLE published_runs (
  case_id     TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  strategy    TEXT NOT NULL CHECK (strategy IN ('broken', 'unsuccessful', 'repaired')),
  exit_status INTEGER NOT NULL,
  digest      TEXT NOT NULL,
  PRIMARY KEY (case_id, strategy)
) STRICT, WITHOUT ROWID;

-- The latest recorded run of each case and strategy.
CREATE TABLE runs (
  case_id         TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  strategy        TEXT NOT NULL CHECK (strategy IN ('broken', 'unsuccessful', 'repaired')),
  observation     TEXT NOT NULL,           -- observation document, bytes as printed, no newline
  exit_status     INTEGER NOT NULL,
  digest          TEXT NOT NULL,           -- SHA-256 hex of observation
  failmap_version TEXT NOT NULL,
  recorded_at     TEXT NOT NULL,           -- UTC time of the run; not digested
  PRIMARY KEY (case_id, strategy)
) STRICT, WITHOUT ROWID;
