-- failmap archive schema, version 6: a case's fixtures live in its row.
--
-- Every case has exactly the fixtures its mechanism's templates give at its
-- parameters (seven for every compiled mechanism), always read and written
-- together with the case. Version 1 kept them as one row each in `fixtures`
-- (seven rows, each repeating the case id, per case): seven index inserts per
-- imported case and a second query per case read. Now two columns of `cases`:
--
--   fixture_labels  JSON array of the check labels, in page order:
--                   ["short final batch", "all full batches", ...]
--   fixture_values  JSON array, one [args, expected] pair per fixture in the
--                   same order, each value as json.dumps spells it (floats as
--                   Python's repr, NaN/Infinity as Python writes them):
--                   [[[[1, 1, 1], 2], 3], [[[1, 1], 1], 2], ...]
--
-- The pair texts are the former `args` and `expected` columns verbatim, so
-- the move is lossless. Read with SQLite's JSON functions, e.g.
--   SELECT id, json_extract(fixture_values, '$[0][1]') FROM cases;
-- (json_extract cannot read NaN/Infinity, which only float mechanisms with
-- such values produce.)
ALTER TABLE cases ADD COLUMN fixture_labels TEXT NOT NULL DEFAULT '[]';
ALTER TABLE cases ADD COLUMN fixture_values TEXT NOT NULL DEFAULT '[]';

UPDATE cases SET
  fixture_labels = (SELECT '[' || ifnull(group_concat(json_quote(label), ', '), '') || ']'
                      FROM (SELECT label FROM fixtures f WHERE f.case_id = cases.id ORDER BY position)),
  fixture_values = (SELECT '[' || ifnull(group_concat('[' || args || ', ' || expected || ']', ', '), '') || ']'
                      FROM (SELECT args, expected FROM fixtures f WHERE f.case_id = cases.id ORDER BY position));

DROP TABLE fixtures;
