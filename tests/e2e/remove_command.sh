# failmap remove CASE...: the cases and their runs go in one transaction, each
# removed version is kept in history (as import --replace keeps a replaced
# one), and one unknown id refuses the whole command with the archive as before.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
checks_may_fail "$FAILMAP" -q run FA-98921 >/dev/null      # three recorded runs, two in the open build (broken fails: exit 1)
checks_may_fail "$FAILMAP" -q run FA-11135 -s broken >/dev/null
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM runs")" = $((STRATEGIES + 1)) ] || fail "set-up: $((STRATEGIES + 1)) runs expected"

# An unknown id among known ones: exit 2 naming it, nothing removed.
before=$(archive_state)
expect_status 2 "$FAILMAP" remove FA-98921 FA-00000 FA-00001
[ -z "$out" ] || fail "a refused remove printed: $out"
expect_error_mentions "unknown cases 'FA-00000', 'FA-00001' in $FAILMAP_DB (see \`failmap list\`); nothing was removed"
[ "$(archive_state)" = "$before" ] || fail "a refused remove changed the archive"

# Two cases (one named twice): both gone with their runs, in one report.
expect_status 0 "$FAILMAP" remove FA-98921 FA-11135 FA-98921
[ "$out" = "removed 2 case(s) and $((STRATEGIES + 1)) recorded run(s) from $FAILMAP_DB; each removed version is kept (failmap history CASE)" ] ||
  fail "remove said: $out"
for t in cases runs case_digests repair_salts published_runs; do
  col=$([ "$t" = cases ] && echo id || echo case_id)
  n=$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM $t WHERE $col IN ('FA-98921', 'FA-11135')")
  [ "$n" = 0 ] || fail "$t still holds $n row(s) of the removed cases"
done
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM cases")" = $((SHIPPED - 2)) ] || fail "other cases were removed"
expect_status 0 "$FAILMAP" verify    # nothing left behind: no orphan rows, every other case intact

# history keeps the removed version: its record is the case file's content.
expect_status 0 "$FAILMAP" history FA-98921 --json
printf '%s\n' "$out" | python3 -c '
import json, sys
h = json.loads(sys.stdin.read())
assert h["current"] is False and len(h["versions"]) == 1, h
v = h["versions"][0]
assert v["version"] == 1 and v["replaced_by"] == "failmap remove", v
case = json.load(open(sys.argv[1]))
for k in ("id", "mechanism", "title", "params", "fixtures"):
    assert v["record"][k] == case[k], (k, v["record"][k], case[k])
' "$SRC/cases/FA-98921.json" || fail "history of the removed case: $out"
expect_status 0 "$FAILMAP" history FA-98921
echo "$out" | grep -qx "current  (none: the case was deleted)" || fail "history text: $out"

# The removed case imports again, as new; --json names what went.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
[ "$out" = "imported 1 new case(s), 0 replaced, 0 unchanged into $FAILMAP_DB" ] || fail "re-import: $out"
expect_status 0 "$FAILMAP" remove FA-98921 --json
[ "$out" = '{"removed":["FA-98921"],"runs_removed":0}' ] || fail "remove --json: $out"
expect_status 0 "$FAILMAP" history FA-98921 --json
[ "$(printf '%s' "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["versions"]))')" = 2 ] ||
  fail "the second removal is not kept as version 2: $out"

# No id: usage error; no archive: error, nothing created.
expect_status 2 "$FAILMAP" remove
expect_status 2 "$FAILMAP" --db none.db remove FA-11257
[ ! -e none.db ] || fail "remove created an archive"
