-- failmap archive schema, version 5: compact recorded runs.
--
-- A recorded run keeps only what cannot be recomputed from its case. The
-- observation document (schema/DIGESTS.md) is rebuilt byte for byte from the
-- case's fixtures (labels, expected values) and the run's actual values:
-- each check's `passed` is Python `actual == expected`, the final `passed`
-- is all() of them (src/io/observation.h, rebuild_observation). A document
-- that does not rebuild that way (imported from a bundle with other bytes,
-- or values whose text would not survive the round trip) is kept verbatim
-- in `observation` instead of `actuals`, so nothing is ever lost.
--
-- The case digest moves out of the wide cases row into its own narrow
-- table: `run --all` refreshes it for every case, and rewriting a case row
-- (about 4 KiB of prose and field digests) per case cost more than the runs.
--
-- Applied by src/store/archive.cc, which then moves every row of the
-- version-4 tables below (runs_v4, the case_digest column) into the new
-- ones, checking each rebuilt document against the stored bytes, and drops
-- them (Archive::compact_v4_runs).

ALTER TABLE runs RENAME TO runs_v4;

-- (failmap version, recorded_at) pairs, interned: one row per recording
-- session (a `run --all` stores one pair for all its runs).
CREATE TABLE recordings (
  id              INTEGER PRIMARY KEY,
  failmap_version TEXT NOT NULL,
  recorded_at     TEXT NOT NULL,           -- UTC time of the run; not digested
  UNIQUE (failmap_version, recorded_at)
) STRICT;

-- The latest recorded run of each case and strategy.
CREATE TABLE runs (
  case_id     TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  strategy    INTEGER NOT NULL CHECK (strategy BETWEEN 0 AND 2),  -- 0 broken, 1 unsuccessful, 2 repaired
  actuals     TEXT,                        -- json.dumps of the list of actual values, one per fixture
  exit_status INTEGER NOT NULL,
  digest      BLOB NOT NULL CHECK (length(digest) = 32),  -- SHA-256 of the observation document
  recording   INTEGER NOT NULL REFERENCES recordings(id),
  observation TEXT,                        -- the document verbatim, only when it does not rebuild
  CHECK ((actuals IS NULL) <> (observation IS NULL)),
  PRIMARY KEY (case_id, strategy)
) STRICT, WITHOUT ROWID;

-- failmap's case digest (schema/DIGESTS.md), absent until computed.
CREATE TABLE case_digests (
  case_id TEXT PRIMARY KEY REFERENCES cases(id) ON DELETE CASCADE,
  digest  BLOB NOT NULL CHECK (length(digest) = 32)
) STRICT, WITHOUT ROWID;
