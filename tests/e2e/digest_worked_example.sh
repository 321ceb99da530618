# schema/DIGESTS.md's worked example: the case digest of FA-98921, before and
# after its runs are recorded, computed independently with Python's json and
# hashlib (observation documents printed by the reference scripts run with
# python3) equals failmap's stored value and the value written in DIGESTS.md.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
cat > case_digest.py <<'PY'
import hashlib, json, subprocess, sys
case = json.load(open(sys.argv[1]))
def canon(x):  # RFC 8785 for this document: only strings and small ints, ASCII member names
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
def pyjson(v):
    return json.dumps(v, ensure_ascii=False)
record = {k: v for k, v in case.items() if k not in ("format", "format_version", "published")}
record["params"] = {k: pyjson(v) for k, v in case["params"].items()}
record["fixtures"] = [{"label": f["label"], "args": pyjson(f["args"]), "expected": pyjson(f["expected"])}
                      for f in case["fixtures"]]
runs = {}
for strategy, script in zip(sys.argv[2::2], sys.argv[3::2]):
    p = subprocess.run([sys.executable, script], capture_output=True)
    runs[strategy] = {"exit_status": p.returncode, "observation": hashlib.sha256(p.stdout.rstrip(b"\n")).hexdigest()}
doc = {"scheme": "failmap-case-digest", "version": 1, "case": record, "runs": runs}
print(hashlib.sha256(canon(doc).encode("utf-8")).hexdigest())
PY
stored() { sqlite3 "$FAILMAP_DB" "SELECT lower(hex(digest)) FROM case_digests WHERE case_id = 'FA-98921'"; }
documented() { grep -oE "$1 \`[0-9a-f]{64}\`" "$SRC/schema/DIGESTS.md" | grep -oE '[0-9a-f]{64}'; }

"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
python_before=$(python3 case_digest.py "$SRC/cases/FA-98921.json")
[ "$(stored)" = "$python_before" ] || fail "case digest after import $(stored), Python says $python_before"
[ "$(documented 'case digest')" = "$python_before" ] || fail "DIGESTS.md documents $(documented 'case digest'), Python says $python_before"

for s in broken unsuccessful repaired; do "$FAILMAP" reference FA-98921 --strategy "$s" > "ref_$s.py"; done
expect_status 1 "$FAILMAP" run FA-98921
python_after=$(python3 case_digest.py "$SRC/cases/FA-98921.json" broken ref_broken.py unsuccessful ref_unsuccessful.py repaired ref_repaired.py)
[ "$(stored)" = "$python_after" ] || fail "case digest after run $(stored), Python says $python_after"
[ "$(documented 'the case digest is')" = "$python_after" ] || fail "DIGESTS.md documents $(documented 'the case digest is'), Python says $python_after"
[ "$python_before" != "$python_after" ] || fail "recorded runs did not change the case digest"

# Published digests stay verbatim beside failmap's own.
[ "$(sqlite3 "$FAILMAP_DB" "SELECT published_case_digest FROM cases")" = "74a424fc52e6faa167222a2d71e2934c886258981317e46222f3c35933e4df56" ] ||
  fail "the published case digest changed"

# Nothing to regenerate in a consistent archive.
expect_status 0 "$FAILMAP" digest regenerate
[ "$out" = "regenerated the digests of 1 case(s) and 3 run(s): 0 value(s) changed" ] || fail "regenerate said: $out"
expect_status 0 "$FAILMAP" verify
[ "$out" = "verified 1 case(s) and 3 replayed run(s): everything matches" ] || fail "verify said: $out"
