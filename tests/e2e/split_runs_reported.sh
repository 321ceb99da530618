# split says how many run records it wrote: manifest.json "runs" (0 included),
# and a note on stderr when the archive holds no recorded runs at all (before:
# zero run lines, exit 0, nothing said). --quiet quiets stderr only: the
# report on stdout stays (before, -q hid it).
needs_repairs  # its archive is made by `run --all`, which the open build refuses
"$FAILMAP" -q import "$SRC/cases" >/dev/null
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --out a
[ "$err" = "failmap: note: $FAILMAP_DB holds no recorded runs: the split files hold case records only (manifest.json \"runs\": 0; \`failmap run --all\` records them, then split again)" ] ||
  fail "split of an archive without runs said: $err"
python3 -c 'import json,sys; m = json.load(open("a/manifest.json")); assert m["runs"] == 0, m' || fail "manifest runs: $(cat a/manifest.json)"
! grep -q '"record":"run"' a/*.jsonl || fail "run lines in a split of an archive without runs"
# -q: the note is a warning (kept), the report is stdout (kept).
expect_status 0 "$FAILMAP" -q split --ratios train=0.8,test=0.2 --out q
printf '%s\n' "$out" | head -1 | grep -q "^split $SHIPPED case(s) in " || fail "split -q hid its report: '$out'"
expect_error_mentions "holds no recorded runs"

checks_may_fail "$FAILMAP" -q run --all >/dev/null
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --test-tier open --out b
[ -z "$err" ] || fail "split with runs said: $err"
python3 - <<'PY' || fail "manifest runs with runs: $(cat b/manifest.json)"
import json
m = json.load(open("b/manifest.json"))
lines = [json.loads(l) for s in m["splits"] for l in open("b/%s.jsonl" % s["name"])]
runs = sum(1 for l in lines if l["record"] == "run")
test_cases = sum(1 for l in lines if l["record"] == "case" and l["split"] == "test")
train_cases = sum(1 for l in lines if l["record"] == "case" and l["split"] == "train")
assert runs == m["runs"] == 3 * train_cases + 2 * test_cases, (runs, m["runs"], train_cases, test_cases)  # no repair at the open tier
PY
expect_status 0 "$FAILMAP" split check b
# A listing split has no runs: no member, no note.
printf '{"id":"a","g":1}\n{"id":"b","g":2}\n{"id":"c","g":3}\n' >items.jsonl
expect_status 0 "$FAILMAP" -q split --input items.jsonl --group-field g --ratios train=0.5,test=0.5 --out l
[ -z "$err" ] || fail "listing split said: $err"
printf '%s\n' "$out" | head -1 | grep -q "^split 3 item(s) in 3 unit(s)" || fail "split --input -q hid its report: '$out'"
python3 -c 'import json; assert "runs" not in json.load(open("l/manifest.json"))' || fail "listing manifest has runs"
