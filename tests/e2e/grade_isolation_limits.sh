# The limits the docs state are the ones enforced, each with an error of the
# right kind that names it (schema/GRADING.md "Limits"): a value of 1,000,000
# values in all (999,999 ints in a list) is compared, one more is refused by
# name; 64 levels of nesting pass, 65 are refused; a report past 16 MiB is an
# `output` error naming 16777216 bytes, quickly (well within the budget); a
# module outside the standard library is an `import` error saying that the
# cases' contract is the standard library, and a call's exception with the
# same words when imported inside solve.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
rows = [
 ("max-list", "CALLS = []\ndef solve(batch_sizes, target):\n    CALLS.append(1)\n    return list(range(999_999)) if len(CALLS) == 1 else 0\n"),
 ("over-list", "def solve(batch_sizes, target):\n    return list(range(1_000_000))\n"),
 ("max-floats", "def solve(batch_sizes, target):\n    return [0.5] * 999_999\n"),
 ("deep", "def solve(batch_sizes, target):\n    v = 1\n    for _ in range(64):\n        v = [v]\n    return v\n"),
 ("too-deep", "def solve(batch_sizes, target):\n    v = 1\n    for _ in range(65):\n        v = [v]\n    return v\n"),
 ("big-report", "def solve(batch_sizes, target):\n    return list(range(999_999))\n"),
 ("numpy", "import numpy\ndef solve(batch_sizes, target):\n    return 0\n"),
 ("numpy-late", "def solve(batch_sizes, target):\n    import numpy\n    return 0\n"),
]
with open("limits.jsonl", "w") as f:
    for i, (model, src) in enumerate(rows):
        f.write(json.dumps({"case": "FA-98921", "model": model, "sample": i, "source": src}) + "\n")
PY
# max-list returns the maximum on its first call (about 7 MB of report); big-report on every one of the
# case's 7 calls, past 16 MiB.
expect_status 0 "$FAILMAP" grade limits.jsonl --out g --jobs 2 --no-record --timeout 10
python3 - g/results.jsonl g/cpu.jsonl <<'PY'
import json, sys
lines = [json.loads(x) for x in open(sys.argv[1])]
r = {x["model"]: x for x in lines}
cpu = {x["line"]: x for x in map(json.loads, open(sys.argv[2]))}
e = r["big-report"]["error"]
assert e == {"kind": "output", "message": "the candidate's report passed the limit of 16777216 bytes (the values of all "
             "its calls together: too large to compare)"}, e
assert cpu[r["big-report"]["line"]]["share"] in ("<1/16", "<1/4"), cpu  # encoded at C speed, then stopped
m = r["max-list"]
assert m["error"] is None and m["checks"][0]["refused"] is None, (m["error"], m["checks"][0])
assert json.loads(m["observation"])["observations"][0]["actual"] == list(range(999_999))
c = r["over-list"]["checks"][0]
assert r["over-list"]["error"] is None and c["refused"].startswith("a value of more than 1000000 values in all"), c
assert r["max-floats"]["error"]["kind"] == "output", r["max-floats"]["error"]
assert r["deep"]["error"] is None and r["deep"]["checks"][0]["refused"] is None, r["deep"]["checks"][0]
assert r["too-deep"]["checks"][0]["refused"] == "a value nested deeper than 64 levels", r["too-deep"]["checks"][0]
e = r["numpy"]["error"]
assert e["kind"] == "import" and "No module named 'numpy'" in e["message"] and "Python standard library alone" in e["message"], e
c = r["numpy-late"]["checks"][0]
assert r["numpy-late"]["error"] is None and c["exception"].startswith("ModuleNotFoundError: No module named 'numpy' (the cases' contract is the Python standard library alone"), c
print("limits: enforced as documented")
PY
