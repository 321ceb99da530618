# digest regenerate --discard-unreadable-runs: a recorded run whose stored values do
# not decode, in a case whose summary was also changed behind failmap's back. `run` refuses the changed
# summary and names `digest regenerate`; that must not refuse the run by naming `run` again.
needs_repairs  # the damaged run is the repaired one
id=FA-98921
"$FAILMAP" -q import "$SRC/cases/$id.json" >/dev/null
checks_may_fail "$FAILMAP" -q run "$id" >/dev/null
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1" && before=$(archive_state t.db); }
unchanged() { [ "$(archive_state t.db)" = "$before" ] || fail "a refused command changed the archive"; }
bad_actuals="UPDATE runs SET actuals = '[0, 2' WHERE strategy = 2;"
summary="UPDATE case_texts SET summary = 'edited' WHERE text_id = (SELECT text_id FROM cases WHERE id = '$id');"
discard="\`failmap digest regenerate --discard-unreadable-runs $id\`"

# The case unchanged: the refusal names `run`, which works (nothing discarded).
fresh "$bad_actuals"
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "t.db: case $id, repaired run actuals:1:"
expect_error_mentions "\`failmap run $id\` records the case's runs again). Nothing was written."
grep -qF -- "--discard" stderr.txt && fail "the refusal of an unchanged case names the discarding: $err"
unchanged

# Both changed: `run` (one case, and --all) refuses the summary and names the discarding directly, as
# `digest regenerate` does: plain `digest regenerate` would refuse the run.
fresh "$bad_actuals $summary"
for args in "$id" "--all"; do
  expect_status 2 "$FAILMAP" --db t.db run $args
  expect_error_mentions "its field summary does not match the field digest"
  expect_error_mentions "$discard accepts the change and discards the case's runs that no longer read (a \`run\` of the case records them again then)."
  grep -qF -- "\`failmap digest regenerate $id\`" stderr.txt && fail "run $args names plain digest regenerate: $err"
  unchanged
done
# Only the summary changed: plain `digest regenerate` works and is what `run` names.
fresh "$summary"
expect_status 2 "$FAILMAP" --db t.db run "$id"
expect_error_mentions "\`failmap digest regenerate $id\` accepts the change."
grep -qF -- "--discard" stderr.txt && fail "run names the discarding for a case whose runs read: $err"
fresh "$bad_actuals $summary"
for args in "" "$id"; do
  expect_status 2 "$FAILMAP" --db t.db digest regenerate $args
  expect_error_mentions "t.db: case $id, repaired run actuals:1:"
  expect_error_mentions "so \`failmap run $id\` refuses it: $discard discards the run and accepts the change"
  unchanged
done
# Reading commands that meet the run name the same command.
for cmd in "export --out out" "export --out out $id" "show $id"; do
  rm -rf out
  set +e; "$FAILMAP" --db t.db $cmd >stdout.txt 2>stderr.txt; set -e
  if grep -qF "repaired run actuals:1:" stderr.txt; then expect_error_mentions "$discard"; fi
done
unchanged

# The option deletes the run in the transaction that accepts the summary, and says so.
expect_status 0 "$FAILMAP" --db t.db digest regenerate --discard-unreadable-runs "$id" --json
python3 - "$out" "$id" <<'PY'
import json, sys
r, id = json.loads(sys.argv[1]), sys.argv[2]
assert (r["cases"], r["runs"]) == (1, 2), r
by = {(c["strategy"], c["field"]): c for c in r["changes"]}
run = by[("repaired", "run")]
assert run["case"] == id and run["now"] == "discarded", run
assert run["was"].startswith("unreadable: t.db: case %s, repaired run actuals:1:" % id), run
assert (None, "field_digests") in by and (None, "case_digest") in by, r["changes"]
assert len(r["changes"]) == 3, r["changes"]
PY
[ "$(sqlite3 t.db "SELECT group_concat(strategy) FROM runs WHERE case_id = '$id'")" = "0,1" ] || fail "runs left: not 0,1"
expect_status 0 "$FAILMAP" --db t.db verify "$id"
[ "$out" = "verified 1 case(s) and 2 replayed run(s): everything matches" ] || fail "verify after discarding: $out"
# `run` records it again, and the archive verifies with every run.
expect_status 1 "$FAILMAP" --db t.db run "$id"
expect_status 0 "$FAILMAP" --db t.db verify "$id"
[ "$out" = "verified 1 case(s) and 3 replayed run(s): everything matches" ] || fail "verify after run: $out"

# The text form names the run and why; a verbatim observation that is not JSON is discarded too.
fresh "UPDATE runs SET actuals = NULL, observation = '{\"observations\": [' WHERE strategy = 1; $summary"
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "t.db: case $id, unsuccessful run observation:1:"
expect_error_mentions "$discard discards the run"
unchanged
expect_status 0 "$FAILMAP" --db t.db digest regenerate --discard-unreadable-runs
head -n 1 stdout.txt | grep -q "^$id  unsuccessful  run: was unreadable: t.db: case $id, unsuccessful run observation:1:.*, now discarded$" ||
  fail "text of the discarded run: $out"
[ "$(tail -n 1 stdout.txt)" = "regenerated the digests of 1 case(s) and 2 run(s): 3 value(s) changed" ] || fail "summary: $out"
# Nothing unreadable: the option changes nothing.
expect_status 0 "$FAILMAP" --db t.db digest regenerate --discard-unreadable-runs
[ "$out" = "regenerated the digests of 1 case(s) and 2 run(s): 0 value(s) changed" ] || fail "second pass: $out"
