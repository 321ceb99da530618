# verify / digest regenerate on unusable input, nothing written. digest
# regenerate refuses it (one clear message, exit 2); verify reports the case
# as one "unreadable" finding (exit 1) and goes on verifying the others.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
checks_may_fail "$FAILMAP" run FA-98921 >/dev/null
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1" && before=$(archive_state t.db); }
unchanged() { [ "$(archive_state t.db)" = "$before" ] || fail "a refused command changed the archive"; }
# expect_unreadable TEXT ARGS...: `verify ARGS` exits 1 with one finding line
# "FA-98921  -  unreadable: t.db: case FA-98921, ..." mentioning TEXT and
# nothing on stderr.
expect_unreadable() {
  local text=$1; shift
  expect_status 1 "$FAILMAP" --db t.db verify "$@"
  [ -z "$err" ] || fail "verify printed an error: $err"
  grep -q "^FA-98921  -  unreadable: t.db: case FA-98921, " stdout.txt || fail "no unreadable finding: $out"
  grep -qF -- "$text" stdout.txt || fail "the finding does not mention '$text': $out"
  [ "$(tail -n 1 stdout.txt)" = "verified 1 case(s) and 0 replayed run(s): 1 mismatch(es)" ] || fail "summary: $out"
}

# Digests are 32-byte BLOBs (schema/005_compact_runs.sql): the schema refuses
# anything else, and verify names a wrong one that got past the CHECK anyway.
rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
sqlite3 t.db "UPDATE runs SET digest = X'0102' WHERE strategy = 0" 2>/dev/null && fail "the schema stored a 2-byte run digest"
sqlite3 t.db "UPDATE runs SET digest = 'XYZ' WHERE strategy = 0" 2>/dev/null && fail "the schema stored a text run digest"
sqlite3 t.db "UPDATE case_digests SET digest = X'0102'" 2>/dev/null && fail "the schema stored a 2-byte case digest"
fresh "PRAGMA ignore_check_constraints = ON; UPDATE runs SET digest = X'0102' WHERE strategy = 0"
expect_unreadable "field broken run digest: '0102' is not a SHA-256 digest (32 bytes)"
unchanged
fresh "PRAGMA ignore_check_constraints = ON; UPDATE case_digests SET digest = CAST(substr(digest, 1, 31) AS BLOB)"
expect_status 1 "$FAILMAP" --db t.db verify --json
[ -z "$err" ] || fail "verify --json printed an error: $err"
python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
assert r["ok"] is False and r["cases"] == 1 and r["runs"] == 0 and len(r["mismatches"]) == 1, r
m = r["mismatches"][0]
assert (m["case"], m["strategy"], m["field"], m["recomputed"]) == ("FA-98921", None, "unreadable", ""), m
assert "field case_digest:" in m["stored"] and "is not a SHA-256 digest (32 bytes)" in m["stored"], m
PY
unchanged
fresh "PRAGMA ignore_check_constraints = ON; UPDATE case_digests SET digest = zeroblob(33)"
expect_unreadable "field case_digest:"
# Field digests are read when the case digest differs (to name the field).
fresh "PRAGMA ignore_check_constraints = ON; UPDATE cases SET field_digests = X'1234'; UPDATE case_texts SET summary = 'edited'"
expect_unreadable "field field_digests: expected 8 SHA-256 digests (256 bytes), got 2 bytes"

fresh "UPDATE runs SET actuals = NULL, observation = '{\"observations\": [' WHERE strategy = 2"
expect_unreadable "(the observation is not valid JSON)"
grep -qF "case FA-98921, repaired run observation:1:" stdout.txt || fail "observation finding: $out"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "repaired run observation:1:"
unchanged
# Stored actual values that are no JSON list.
fresh "UPDATE runs SET actuals = '[0, 2' WHERE strategy = 2"
expect_unreadable "case FA-98921, repaired run actuals:1:"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "case FA-98921, repaired run actuals:1:"
unchanged
fresh "$(fixture_expected_sql clean.db FA-98921 0 three)"
expect_unreadable "fixture 'short final batch' field expected"
unchanged

# Stored columns of the wrong shape say what they hold (they gave the JSON
# library's words, or only what was expected); show and digest regenerate
# refuse them with the same words.
while IFS='|' read -r sql words; do
  fresh "$sql"
  expect_unreadable "t.db: case FA-98921, $words"
  expect_status 2 "$FAILMAP" --db t.db show FA-98921
  [ "$err" = "failmap: error: t.db: case FA-98921, $words" ] || fail "show after $sql: $err"
  unchanged
done <<'EOF2'
UPDATE cases SET params = ''|field params: expected a JSON value, got empty text
UPDATE cases SET params = '  '|field params: expected a JSON value, got only whitespace
UPDATE cases SET params = '[1]'|field params: expected a JSON object, got an array
UPDATE cases SET params = '"N"'|field params: expected a JSON object, got the string "N"
UPDATE cases SET evaluation_group = '[1]'|field evaluation_group: expected a JSON array of strings, got the number 1 in it
UPDATE cases SET evaluation_group = '{"a": "b"}'|field evaluation_group: expected a JSON array of strings, got an object
UPDATE cases SET fixture_labels = 'x'|field fixture_labels: expected a JSON array of strings, got text that is not JSON, "x"
UPDATE cases SET fixture_labels = replace(fixture_labels, '"short final batch"', '7')|field fixture_labels[0]: expected a string, got the number 7
UPDATE cases SET fixture_values = replace(fixture_values, '[[[[1, 1, 1], 2], 3], ', '[[1, 3], ')|fixture 'short final batch' field args: expected a JSON array, got the number 1
UPDATE cases SET fixture_values = '{}'|field fixture_values: expected a JSON array of [args, expected] pairs, got an object
UPDATE cases SET fixture_values = replace(fixture_values, '[[[[1, 1, 1], 2], 3], ', '[[[[1, 1, 1], 2], 3, 4], ')|fixture 'short final batch': expected an [args, expected] pair in fixture_values, got an array of 3 element(s)
EOF2

expect_status 2 "$FAILMAP" --db t.db verify FA-00000
expect_error_mentions "unknown case 'FA-00000'"
expect_status 2 "$FAILMAP" --db t.db digest regenerate FA-00000
expect_error_mentions "unknown case 'FA-00000'"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest
# One unreadable case does not stop the others: in a two-case archive the
# damaged case is one finding and the other's runs are still replayed.
fresh "UPDATE cases SET params = '{\"N\": ' WHERE id = 'FA-98921'"
"$FAILMAP" --db t.db -q import "$SRC/cases/FA-11135.json"
checks_may_fail "$FAILMAP" --db t.db -q run FA-11135 >/dev/null
for jobs in 1 2; do
  expect_status 1 "$FAILMAP" --db t.db verify --jobs $jobs
  [ -z "$err" ] || fail "verify --jobs $jobs printed an error: $err"
  [ "$out" = "FA-98921  -  unreadable: t.db: case FA-98921, field params:1:7: expected a JSON value, found the end of the text
verified 2 case(s) and 3 replayed run(s): 1 mismatch(es)" ] || fail "verify --jobs $jobs: $out"
done
