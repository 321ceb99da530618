# A recorded run never re-digests a case changed outside failmap (sqlite3)
# since it was digested: `run CASE` and `run --all` refuse it with one error
# naming what no longer matches, exit 2, and leave the archive as it was, so
# that `export` still refuses it too (before, the run re-stamped the case
# digest over the edited content and export then wrote a bundle that import
# refuses). `digest regenerate` accepts the change, after which both record.
# `run --no-record` writes nothing and still evaluates the case as stored.
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1"; }
stored_case_digest() { sqlite3 t.db "SELECT lower(hex(digest)) FROM case_digests WHERE case_id = 'FA-98921'"; }
next_steps='`failmap verify FA-98921` names the difference; `failmap digest regenerate FA-98921` accepts the change. Nothing was recorded.'

# refused EXPECTED_STDERR CMD...: CMD exits 2 with exactly that error and t.db
# is unchanged (run --all streams: the lines of the cases before are out).
refused() {
  local want=$1; shift
  local before; before=$(archive_state t.db)
  expect_status 2 "$@"
  [ "$err" = "$want" ] || fail "'$*' stderr:
$err
expected:
$want"
  [ "$(archive_state t.db)" = "$before" ] || fail "'$*' changed the archive"
}

# 1. The binding (N 1 -> 2). run CASE checks the whole case digest (content
# and the runs it keeps); run --all, which replaces every run, the field
# digests, and names the field.
fresh "UPDATE cases SET params = '{\"N\": 2}' WHERE id = 'FA-98921'"
stored=$(stored_case_digest)
expect_status 2 "$FAILMAP" --db t.db run FA-98921
echo "$err" | grep -qE "^failmap: error: t\.db: case FA-98921: its content does not match the case digest the archive stores \(stored $stored, recomputed [0-9a-f]{64}\): it was changed after it was digested\. " ||
  fail "run FA-98921 after a params edit: $err"
[ -z "$out" ] || fail "run FA-98921 printed on stdout: $out"
refused "$(echo "$err")" "$FAILMAP" --db t.db run FA-98921 --strategy broken
[ -z "$out" ] || fail "run FA-98921 --strategy broken printed on stdout: $out"
refused "failmap: error: t.db: case FA-98921: its field params does not match the field digest the archive stores: the case was changed after it was digested. $next_steps" \
  "$FAILMAP" --db t.db run --all
expect_status 2 "$FAILMAP" --db t.db export --out out1
expect_error_mentions "it was changed after it was digested"
# Nothing is recorded, so nothing is refused: the case is evaluated as stored.
expect_status 1 "$FAILMAP" --db t.db run FA-98921 --no-record --strategy broken
[ -n "$out" ] || fail "run --no-record printed nothing"
# digest regenerate accepts the edit; then both record, and export accepts.
"$FAILMAP" --db t.db digest regenerate FA-98921 >/dev/null
expect_status 1 "$FAILMAP" --db t.db run FA-98921
expect_status 0 "$FAILMAP" --db t.db run --all
expect_status 0 "$FAILMAP" --db t.db export --out out2

# 2. An expected value of a fixture, and a prose text of the shared
# case_texts row: run --all names both fields, in name order.
fresh "$(fixture_expected_sql clean.db FA-98921 2 7) UPDATE case_texts SET summary = summary || ' (edited)' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-98921');"
refused "failmap: error: t.db: case FA-98921: its fields fixtures, summary do not match the field digests the archive stores: the case was changed after it was digested. $next_steps" \
  "$FAILMAP" --db t.db run --all
# run CASE finds the fixtures first through the runs rebuilt against them.
expect_status 2 "$FAILMAP" --db t.db run FA-98921
expect_error_mentions "t.db: case FA-98921, broken run: the stored digest $(sqlite3 t.db "SELECT lower(hex(digest)) FROM runs WHERE case_id = 'FA-98921' AND strategy = 0") is not the SHA-256 of its observation as the archive holds it ("
expect_error_mentions "): the run, or the fixtures it is rebuilt against, changed after it was recorded. $next_steps"

# 3. A recorded run changed by hand: run CASE, which keeps the runs it does
# not replace, refuses to re-digest it.
fresh "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0"
expect_status 2 "$FAILMAP" --db t.db run FA-98921 --strategy repaired
expect_error_mentions "t.db: case FA-98921: its content does not match the case digest the archive stores (stored $(stored_case_digest), recomputed"
expect_error_mentions "$next_steps"

# 4. No stored field digests (an archive from before schema 3 keeps them
# NULL): run --all checks such a case against its case digest instead, on
# its own, and still records an unchanged one.
fresh "UPDATE cases SET field_digests = NULL"
expect_status 0 "$FAILMAP" --db t.db run --all
fresh "UPDATE cases SET field_digests = NULL, params = '{\"N\": 2}' WHERE id = 'FA-98921'"
expect_status 2 "$FAILMAP" --db t.db run --all
expect_error_mentions "t.db: case FA-98921: its content does not match the case digest the archive stores (stored $(stored_case_digest), recomputed"
cp clean.db want.db && sqlite3 want.db "UPDATE cases SET field_digests = NULL, params = '{\"N\": 2}' WHERE id = 'FA-98921'"
[ "$(archive_state t.db)" = "$(archive_state want.db)" ] || fail "run --all changed the archive"

