# JSONL bundles: deterministic export, sha256sum -c, round trip, idempotence, conflicts and history.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$SRC/cases/"
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=2..5 --id-prefix T
# Again: identical content, nothing new; --json says so in one object.
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=2..5 --id-prefix T --json
[ "$out" = '{"mechanism":"gradient-accumulation-weighting","parameter":"N","from":2,"to":5,"cases":4,"new":0,"replaced":0,"unchanged":4,"runs_dropped":0,"first_id":"T-gradient-accumulation-weighting-2","last_id":"T-gradient-accumulation-weighting-5","same_content":[]}' ] ||
  fail "instantiate --json: $out"
expect_status 1 "$FAILMAP" run FA-98921   # records three runs (broken and unsuccessful fail: exit 1)
for tier in open member; do
  expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --out $tier
  expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --out ${tier}2
  diff -r $tier ${tier}2 >/dev/null || fail "exporting twice gave different bytes ($tier)"
  (cd $tier && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c failed ($tier)"
  # Every line is one JSON object that plain tools load.
  python3 -c "
import json, sys
for f in ['mechanisms.jsonl', 'cases.jsonl', 'runs.jsonl']:
    for line in open('$tier/' + f, encoding='utf-8'):
        assert isinstance(json.loads(line), dict)
" || fail "JSONL does not load as plain JSON Lines"
  # Round trip through an empty archive gives the same bytes.
  expect_status 0 "$FAILMAP" --db rt_$tier.db import $tier
  expect_status 0 "$FAILMAP" --db rt_$tier.db export --format jsonl --tier $tier --out ${tier}_rt
  diff -r $tier ${tier}_rt >/dev/null || fail "import then export changed the bundle ($tier)"
done
ncases=$(( $(ls "$SRC"/cases/*.json | wc -l) + 4 ))
[ "$(grep -c '"record":"case"' member/cases.jsonl)" = $ncases ] || fail "expected $ncases case records"
[ "$(wc -l < member/runs.jsonl)" = 3 ] || fail "member bundle: 3 runs"
[ "$(wc -l < open/runs.jsonl)" = 2 ] || fail "open bundle: 2 runs (no repaired run)"
nmech=$(ls "$SRC"/src/mechanisms/*.cc | wc -l)
python3 -c "import json; m=json.load(open('open/manifest.json')); assert m['counts']=={'case':$ncases,'mechanism':$nmech,'run':2}, m; assert m['export_tier']=='open' and m['format_version']==3" \
  || fail "manifest counts"

# Importing identical content again changes nothing and says so.
before=$(archive_state)
expect_status 0 "$FAILMAP" import member
echo "$out" | grep -q "nothing changed" || fail "re-import did not say nothing changed: $out"
[ "$(archive_state)" = "$before" ] || fail "re-import changed the archive"
# A different recording of the same runs (here another failmap version) takes
# their place, and the report says how many it replaced.
cp -r member other_recording && sed -i 's/"failmap_version":"[^"]*"/"failmap_version":"0.0.9"/' other_recording/runs.jsonl
resum_bundle other_recording
expect_status 0 "$FAILMAP" --db rt_member.db import other_recording
echo "$out" | grep -q "; 3 run(s) recorded (3 in place of another recording of the same case and strategy), 0 unchanged" ||
  fail "replaced recordings not reported: $out"
[ "$(sqlite3 rt_member.db "SELECT DISTINCT failmap_version FROM recordings r JOIN runs u ON u.recording = r.id")" = 0.0.9 ] ||
  fail "the other recording did not take the runs' place"

# Different content under an existing id: refused, then --replace keeps the previous version.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["title"] = "A retitled case"
json.dump(c, open("retitled.json", "w"))
PY
expect_status 2 "$FAILMAP" import retitled.json
expect_error_mentions "retitled.json: case FA-98921 already exists in the archive with different content"
[ "$(archive_state)" = "$before" ] || fail "a refused conflict changed the archive"
runs_before=$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM runs WHERE case_id = 'FA-98921'")
[ "$runs_before" = 3 ] || fail "expected the bundle's 3 runs of FA-98921, found $runs_before"
expect_status 0 "$FAILMAP" import --replace retitled.json
echo "$out" | grep -q "1 replaced" || fail "replace report: $out"
# The runs observed the old version: dropped with it, and said so.
echo "$out" | grep -q "^dropped 3 recorded run(s) of the replaced version(s)" || fail "dropped runs not reported: $out"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM runs WHERE case_id = 'FA-98921'")" = 0 ] || fail "runs of the old version kept"
expect_status 0 "$FAILMAP" history FA-98921
echo "$out" | grep -q "1 earlier version(s) of FA-98921" || fail "history: $out"
expect_status 0 "$FAILMAP" history FA-98921 --json
echo "$out" | python3 -c "
import json, sys
h = json.loads(sys.stdin.read())
assert h['case'] == 'FA-98921' and h['current'] is True and len(h['versions']) == 1, h
e = h['versions'][0]
assert e['version'] == 1 and e['record']['title'] == 'The final short batch is discarded from accumulation', e
assert e['replaced_by'].endswith('retitled.json')
" || fail "history --json does not hold the previous version"
expect_status 0 "$FAILMAP" import --replace --json "$SRC/cases/FA-98921.json"
echo "$out" | python3 -c "
import json, sys
r = json.loads(sys.stdin.read())
assert r['replaced'] == ['FA-98921'] and r['runs_dropped'] == 0, r
" || fail "import --replace --json: $out"
expect_status 0 "$FAILMAP" history FA-98921
echo "$out" | grep -q "2 earlier version(s)" || fail "second replacement not kept: $out"
expect_status 2 "$FAILMAP" history FA-00000
expect_error_mentions "unknown case 'FA-00000'"

# Selected cases only, and unknown ids refused naming every one.
expect_status 0 "$FAILMAP" export --format jsonl T-gradient-accumulation-weighting-3 --out one
[ "$(wc -l < one/cases.jsonl)" = 1 ] || fail "selected export"
expect_status 2 "$FAILMAP" export --format jsonl FA-1 FA-2 --out none
expect_error_mentions "unknown case(s) in $FAILMAP_DB: FA-1, FA-2"
expect_status 2 "$FAILMAP" export --format jsonl --out one
expect_error_mentions "not empty"
