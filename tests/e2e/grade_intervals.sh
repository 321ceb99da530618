# Intervals, coverage and comparison on the README's test split: the table
# shows held-out, coverage and pass@1 with its interval; summary.json's
# intervals (per model and mechanism, units resampled) and `grade compare`
# equal tests/data/stats_reference.py's independent computation; a model
# that answers 4 of the split's tasks gets pass@1 over the split, not 1.0.
expect_status 0 "$FAILMAP" import "$SRC/cases/"
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --format tasks --out tasks
python3 "$SRC/tests/data/predictions/make_lookup.py" tasks/test.jsonl --partial 4 > preds.jsonl
expect_status 0 "$FAILMAP" grade preds.jsonl --split tasks --split-name test --held-out 5 --out g --no-record
grep -q "^MODEL .* HELD-OUT  COVERAGE  PASS@1  95% INTERVAL$" stdout.txt || fail "table header: $out"
n=$(grep -c . tasks/test.jsonl)  # the test split's cases, derived from the archive's split
grep -q "^lookup  .* $n  *0 .*  $n/$n   1.000  \[1.000, 1.000\]$" stdout.txt || fail "lookup row: $out"
grep -q "^some-lookup .*  4/$n " stdout.txt || fail "some-lookup row: $out"

cp "$SRC/tests/data/stats_reference.py" ref.py
cat > unitsref.py <<'PY'
import json
tasks = {t["task_id"]: t for t in map(json.loads, open("tasks/test.jsonl"))}

def units(ids, links_mechanism=True):
    parent = {}
    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]; x = parent[x]
        return x
    keys = {}
    for i in ids:
        t = tasks[i]
        k = (["mechanism:" + t["mechanism"]] if links_mechanism else ["case:" + i]) + ["group:" + g for g in t["evaluation_group"]]
        keys[i] = k
        for key in k: parent.setdefault(key, key)
        for key in k[1:]: parent[find(key)] = find(k[0])
    naming = {}
    for i in ids:
        r = find(keys[i][0])
        naming[r] = min(naming.get(r, "\U0010ffff"), min(k for k in keys[i] if not k.startswith("content:")))
    by = {}
    for i in sorted(ids):
        by.setdefault(naming[find(keys[i][0])], []).append(i)
    return [by[k] for k in sorted(by)]
PY
python3 - <<'PY' || fail "intervals differ from the Python reference"
import json, sys
sys.argv = ["ref"]
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    import ref
tasks = {t["task_id"]: t for t in map(json.loads, open("tasks/test.jsonl"))}
s = json.load(open("g/summary.json"))
lines = [json.loads(l) for l in open("g/results.jsonl")]
assert s["format_version"] == 2 and s["split_cases"] == sorted(tasks), s["split_cases"]

from unitsref import units

for model, m in s["models"].items():
    per = {}
    for l in lines:
        if l["model"] == model:
            n, c = per.get(l["case"], (0, 0)); per[l["case"]] = (n + 1, c + (l["verdict"] == "resolved"))
    over = sorted(tasks)
    value = lambda i: ref.pass_at_k(*per[i], 1) if i in per else 0.0
    total = 0.0
    for i in over: total += value(i)
    assert m["pass_at_k"]["1"] == total / len(over), (model, m["pass_at_k"])
    assert m["cases"] == len(per) and m["split_cases"] == len(tasks) and m["coverage"] == len(per) / len(tasks), m
    att = 0.0
    for i in sorted(per): att += value(i)
    assert m["pass_at_k_attempted"]["1"] == att / len(per)
    us = units(over)
    assert m["units"] == len(us), (m["units"], len(us))
    lo, hi = ref.bootstrap([[value(i) for i in u] for u in us], "model:" + model)
    assert m["pass_at_k_interval"]["1"] == [lo, hi], (model, m["pass_at_k_interval"], lo, hi)
    for mech, mm in m["mechanisms"].items():
        ids = [i for i in over if tasks[i]["mechanism"] == mech]
        mu = units(ids, links_mechanism=False)
        assert mm["units"] == len(mu) and mm["split_cases"] == len(ids), (mech, mm)
        want = ref.bootstrap([[value(i) for i in u] for u in mu], "model:%s/mechanism:%s" % (model, mech)) if len(mu) >= 2 else None
        got = mm["pass_at_k_interval"]["1"]
        assert (got is None and want is None) or got == list(want), (model, mech, got, want)
assert s["models"]["some-lookup"]["pass_at_k"]["1"] == 4 / len(tasks) and s["models"]["some-lookup"]["pass_at_k_attempted"]["1"] == 1.0
assert s["models"]["lookup"]["held_out_resolved"] == 0
PY

# grade compare against the reference's paired comparison.
expect_status 0 "$FAILMAP" grade compare g --models lookup,echo-broken --json
printf '%s\n' "$out" > compare.json
python3 - <<'PY' || fail "grade compare differs from the Python reference: $(cat compare.json)"
import json, sys, io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    import ref
c = json.load(open("compare.json"))
tasks = {t["task_id"]: t for t in map(json.loads, open("tasks/test.jsonl"))}
lines = [json.loads(l) for l in open("g/results.jsonl")]
rate = {}
for l in lines:
    n, k = rate.get((l["model"], l["case"]), (0, 0)); rate[(l["model"], l["case"])] = (n + 1, k + (l["verdict"] == "resolved"))
both = sorted(i for i in tasks if ("lookup", i) in rate and ("echo-broken", i) in rate)
from unitsref import units as unit_lists
units = [[(rate[("lookup", i)][1] / rate[("lookup", i)][0], rate[("echo-broken", i)][1] / rate[("echo-broken", i)][0]) for i in u] for u in unit_lists(both)]
diff, interval, p = ref.paired(units, "compare:lookup\0echo-broken")
assert c["cases"] == len(both) == len(tasks) and c["units"] == len(units), c
assert c["difference"] == diff and c["interval"] == list(interval) and c["p_value"] == p, (c, diff, interval, p)
print(c)
PY
expect_status 0 "$FAILMAP" grade compare g --models lookup,echo-broken
grep -q "^paired sign-flip permutation test over units: p = " stdout.txt || fail "compare table: $out"
expect_status 2 "$FAILMAP" grade compare g --models lookup,nobody
expect_error_mentions "has no line of model \"nobody\""
expect_status 2 "$FAILMAP" grade compare g --models lookup
expect_error_mentions "--models: expected two model names as A,B"
