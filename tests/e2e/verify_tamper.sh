# Tamper tests: change one row with the sqlite3 command-line tool; `verify`
# names exactly that case and field, and nothing else. `digest regenerate`
# rewrites derived digests and lists what it changed.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["id"] = "FA-00002"; c["title"] = "A second case"; del c["published"]
json.dump(c, open("FA-00002.json", "w"))
PY
"$FAILMAP" import "$SRC/cases/FA-98921.json" FA-00002.json >/dev/null
"$FAILMAP" run --all >/dev/null 2>&1
cp "$FAILMAP_DB" clean.db
expect_status 0 "$FAILMAP" verify --json
[ "$out" = '{"ok":true,"cases":2,"runs":6,"without_field_digests":0,"mismatches":[],"gradings":{"checked":0,"not_checked":0,"mismatches":[]}}' ] || fail "clean archive: $out"

# tamper SQL EXPECTED_JSON: on a fresh copy, verify --json must list exactly EXPECTED_JSON.
tamper() {
  rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
  sqlite3 t.db "$1"
  local before; before=$(archive_state t.db)
  expect_status 1 "$FAILMAP" --db t.db verify --json
  python3 - "$out" "$2" <<'PY' || fail "after: $1"
import json, sys
got = json.loads(sys.argv[1])["mismatches"]
want = json.loads(sys.argv[2])
if got != want:
    sys.exit(f"verify listed {json.dumps(got)}, expected {json.dumps(want)}")
PY
  [ "$(archive_state t.db)" = "$before" ] || fail "verify wrote to the archive"
  # Export refuses the changed case (bundle and pages), naming it, and
  # leaves no folder: a bundle would carry the change under a fresh digest.
  local id; id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])[0]["case"])' "$2")
  for format in jsonl pages; do
    rm -rf "t.$format"
    expect_status 2 "$FAILMAP" --db t.db export --format $format --tier member --out "t.$format"
    expect_error_mentions "t.db: case $id"
    expect_error_mentions "Nothing was exported"
    [ ! -e "t.$format" ] || fail "a refused export left t.$format"
  done
}

# An observation's actual value (first check of the broken run: 0 -> 5). Runs
# keep their actual values (schema/005_compact_runs.sql; strategy 0 = broken).
[ "$(sqlite3 clean.db "SELECT actuals FROM runs WHERE case_id = 'FA-98921' AND strategy = 0")" = "[0, 2, 0, 0, 0, 2, 0]" ] ||
  fail "unexpected stored actuals"
tamper "UPDATE runs SET actuals = '[5' || substr(actuals, 3) WHERE case_id = 'FA-98921' AND strategy = 0" \
  '[{"case":"FA-98921","strategy":"broken","field":"observations[0].actual","stored":"5","recomputed":"0"}]'
# A fixture's expected value.
tamper "$(fixture_expected_sql clean.db FA-00002 0 4)" \
  '[{"case":"FA-00002","strategy":null,"field":"fixtures[0].expected","stored":"4","recomputed":"3"}]'
# A prose field.
# (schema/007: prose lives in case_texts; summary is the 5th digest of its field_digests blob)
sum_digest=$(sqlite3 clean.db "SELECT lower(hex(substr(t.field_digests, 1 + 32 * 4, 32))) FROM cases c JOIN case_texts t USING (text_id) WHERE c.id = 'FA-98921'")
[ "$sum_digest" = "$(printf '"%s"' "$(sqlite3 clean.db "SELECT summary FROM cases JOIN case_texts USING (text_id) WHERE id = 'FA-98921'")" | sha256sum | cut -d' ' -f1)" ] ||
  fail "stored summary digest $sum_digest is not SHA-256 of the quoted summary"
new_digest=$(printf '"%s"' "Nothing to see here." | sha256sum | cut -d' ' -f1)
tamper "UPDATE case_texts SET summary = 'Nothing to see here.' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-98921')" \
  "[{\"case\":\"FA-98921\",\"strategy\":null,\"field\":\"summary\",\"stored\":\"$sum_digest\",\"recomputed\":\"$new_digest\"}]"
# A run digest.
real=$(sqlite3 clean.db "SELECT lower(hex(digest)) FROM runs WHERE case_id = 'FA-00002' AND strategy = 1")
fake=$(printf 'x' | sha256sum | cut -d' ' -f1)
tamper "UPDATE runs SET digest = X'$fake' WHERE case_id = 'FA-00002' AND strategy = 1" \
  "[{\"case\":\"FA-00002\",\"strategy\":\"unsuccessful\",\"field\":\"digest\",\"stored\":\"$fake\",\"recomputed\":\"$real\"}]"
# The case digest.
real=$(sqlite3 clean.db "SELECT lower(hex(digest)) FROM case_digests WHERE case_id = 'FA-98921'")
tamper "UPDATE case_digests SET digest = X'$fake' WHERE case_id = 'FA-98921'" \
  "[{\"case\":\"FA-98921\",\"strategy\":null,\"field\":\"case_digest\",\"stored\":\"$fake\",\"recomputed\":\"$real\"}]"
# An exit status.
tamper "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0" \
  '[{"case":"FA-98921","strategy":"broken","field":"exit_status","stored":"0","recomputed":"1"}]'

# Text output: one line per mismatch, naming case, strategy, field, both values.
expect_status 1 "$FAILMAP" --db t.db verify FA-98921
echo "$out" | grep -qx "FA-98921  broken  exit_status: stored 0, recomputed 1" || fail "text report: $out"
expect_status 0 "$FAILMAP" --db t.db verify FA-00002

# regenerate rewrites a tampered digest from the stored content and says which.
rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
sqlite3 t.db "UPDATE runs SET digest = X'$fake' WHERE case_id = 'FA-00002' AND strategy = 1"
expect_status 0 "$FAILMAP" --db t.db digest regenerate
echo "$out" | grep -qx "FA-00002  unsuccessful  digest: was $fake, now $(sqlite3 clean.db "SELECT lower(hex(digest)) FROM runs WHERE case_id = 'FA-00002' AND strategy = 1")" ||
  fail "regenerate did not list the digest: $out"
echo "$out" | grep -qx "regenerated the digests of 2 case(s) and 6 run(s): 1 value(s) changed" || fail "regenerate summary: $out"
expect_status 0 "$FAILMAP" --db t.db verify
# --json: the same change as one object (strategy null only for the case's own fields).
sqlite3 t.db "UPDATE runs SET digest = X'$fake' WHERE case_id = 'FA-00002' AND strategy = 1"
expect_status 0 "$FAILMAP" --db t.db digest regenerate --json
[ "$out" = "{\"cases\":2,\"runs\":6,\"changes\":[{\"case\":\"FA-00002\",\"strategy\":\"unsuccessful\",\"field\":\"digest\",\"was\":\"$fake\",\"now\":\"$(sqlite3 clean.db "SELECT lower(hex(digest)) FROM runs WHERE case_id = 'FA-00002' AND strategy = 1")\"}]}" ] ||
  fail "regenerate --json: $out"
# After a prose edit, regenerate adopts the stored content: field and case digests change.
sqlite3 t.db "UPDATE case_texts SET summary = 'Edited on purpose.' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-98921')"
expect_status 0 "$FAILMAP" --db t.db digest regenerate FA-98921
echo "$out" | grep -q "^FA-98921  -  case_digest: was " || fail "regenerate after an edit: $out"
echo "$out" | grep -qx "regenerated the digests of 1 case(s) and 3 run(s): 2 value(s) changed" || fail "regenerate summary: $out"
expect_status 0 "$FAILMAP" --db t.db verify

# Same values, different bytes: named as the observation itself. Such a
# document is stored verbatim instead of as actual values (strategy 2 = repaired).
rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
expect_status 0 "$FAILMAP" --db t.db run FA-00002 --strategy repaired --format json --no-record
doc=${out//'], "passed"'/'],  "passed"'}
sqlite3 t.db "UPDATE runs SET actuals = NULL, observation = '$doc' WHERE case_id = 'FA-00002' AND strategy = 2"
expect_status 1 "$FAILMAP" --db t.db verify --json
python3 -c 'import json,sys; m=json.loads(sys.argv[1])["mismatches"]; assert [(x["case"],x["strategy"],x["field"]) for x in m]==[("FA-00002","repaired","observation")], m; assert "],  \"passed\"" in m[0]["stored"]' "$out" ||
  fail "byte-only change: $out"

# A case deleted with sqlite3 (foreign keys off, its default) leaves its rows
# in the tables keyed by case id: verify lists each table, and importing the
# case again is refused with a message naming the cause (was a bare "UNIQUE
# constraint failed: case_digests.case_id").
rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
sqlite3 t.db "DELETE FROM cases WHERE id = 'FA-98921'"
expect_status 1 "$FAILMAP" --db t.db verify --json
[ "$out" = '{"ok":false,"cases":1,"runs":3,"without_field_digests":0,"mismatches":[{"case":"FA-98921","strategy":null,"field":"case_digests","stored":"row for this id","recomputed":"no such case"},{"case":"FA-98921","strategy":null,"field":"published_runs","stored":"row for this id","recomputed":"no such case"},{"case":"FA-98921","strategy":null,"field":"repair_salts","stored":"row for this id","recomputed":"no such case"},{"case":"FA-98921","strategy":null,"field":"runs","stored":"row for this id","recomputed":"no such case"}],"gradings":{"checked":0,"not_checked":0,"mismatches":[]}}' ] ||
  fail "orphan rows: $out"
before=$(archive_state t.db)
expect_status 2 "$FAILMAP" --db t.db import "$SRC/cases/FA-98921.json"
expect_error_mentions "case FA-98921: table case_digests already holds a row for this id, though the case is not in the archive"
[ "$(archive_state t.db)" = "$before" ] || fail "a refused import changed the archive"
# Published digests are outside the case digest, but only 64 lower-case hex
# digits can be published again: verify names an edited one (an escape
# sequence here, shown escaped) and export refuses it, writing nothing.
"$FAILMAP" --db pub.db -q import "$SEED"
sqlite3 pub.db "UPDATE cases SET published_case_digest = char(27) || ']0;x' || char(7);
                UPDATE published_runs SET digest = 'xyz' WHERE strategy = 'broken'"
expect_status 1 "$FAILMAP" --db pub.db verify
[ "$out" = 'FA-98921  -  published_case_digest: stored \x1b]0;x\x07, recomputed 64 lower-case hex digits
FA-98921  -  published run digest: stored xyz, recomputed 64 lower-case hex digits
verified 1 case(s) and 0 replayed run(s): 2 mismatch(es)' ] || fail "verify published: $out"
for format in jsonl pages; do
  expect_status 2 "$FAILMAP" --db pub.db export --format $format --out pub_$format
  expect_error_mentions "case FA-98921, field published_case_digest: '\\x1b]0;x\\x07' is not 64 lower-case hex digits"
  [ ! -e pub_$format ] || fail "export $format wrote a folder"
done
