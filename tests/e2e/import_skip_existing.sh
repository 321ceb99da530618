# import --skip-existing: a case already present with other content is
# reported and left as the archive has it (its runs too, and the input's runs
# of it are not recorded); the rest is imported. Not with --replace.
"$FAILMAP" -q import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json" >/dev/null
checks_may_fail "$FAILMAP" -q run FA-98921 >/dev/null
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = "Retitled"
json.dump(c, open("retitled.json", "w"))
PY
mkdir in && cp retitled.json "$SRC/cases/FA-11135.json" "$SRC/cases/FA-11257.json" in/
before_case=$(sqlite3 "$FAILMAP_DB" "SELECT t.title FROM cases c JOIN case_texts t USING (text_id) WHERE c.id = 'FA-98921'")

# Without the flag the import is refused as before.
expect_status 2 "$FAILMAP" import in
expect_error_mentions "case FA-98921 already exists in the archive with different content (members that differ: title"

expect_status 0 "$FAILMAP" import --skip-existing in
[ "$out" = "skipped FA-98921 (in/retitled.json): already in the archive with other content (members that differ: title); the archive's version is left as it is
imported 1 new case(s), 0 replaced, 1 unchanged, 1 skipped into $FAILMAP_DB" ] || fail "import --skip-existing said: $out"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT t.title FROM cases c JOIN case_texts t USING (text_id) WHERE c.id = 'FA-98921'")" = "$before_case" ] ||
  fail "the skipped case was changed"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM runs WHERE case_id = 'FA-98921'")" = "$STRATEGIES" ] || fail "the skipped case lost its runs"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM case_history")" = 0 ] || fail "a skipped case went to history"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM cases WHERE id = 'FA-11257'")" = 1 ] || fail "the new case was not imported"
expect_status 0 "$FAILMAP" verify

# A bundle: the skipped case's runs are the bundle's version's, not recorded;
# the bundle's other cases and runs are imported.
needs_repairs  # a member-tier bundle
"$FAILMAP" --db other.db -q import retitled.json "$SRC/cases/FA-13557.json" >/dev/null
checks_may_fail "$FAILMAP" --db other.db -q run FA-98921 -s broken >/dev/null
checks_may_fail "$FAILMAP" --db other.db -q run FA-13557 -s broken >/dev/null
"$FAILMAP" --db other.db -q export --format jsonl --tier member --out bundle >/dev/null
runs_before=$(sqlite3 "$FAILMAP_DB" "SELECT digest FROM runs WHERE case_id = 'FA-98921' ORDER BY strategy" | sha256sum)
expect_status 0 "$FAILMAP" import --skip-existing bundle --json
printf '%s\n' "$out" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["added"] == ["FA-13557"] and j["replaced"] == [] and j["unchanged"] == [], j
assert j["skipped"] == [{"id": "FA-98921", "source": "bundle/cases.jsonl:2", "members_differing": "title"}], j["skipped"]
assert j["runs_skipped"] == 1 and j["runs_added"] == 1, j
' || fail "import --skip-existing --json of a bundle: $out"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT digest FROM runs WHERE case_id = 'FA-98921' ORDER BY strategy" | sha256sum)" = "$runs_before" ] ||
  fail "a run of the skipped case was recorded"
expect_status 0 "$FAILMAP" verify

before=$(archive_state)
expect_status 2 "$FAILMAP" import --skip-existing --replace in
expect_error_mentions "--replace and --skip-existing: give one"
[ "$(archive_state)" = "$before" ] || fail "a refused import changed the archive"
