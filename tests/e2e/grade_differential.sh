# Differential test of grading against the oracle (schema/GRADING.md): for every
# shipped case (every 8th in the sanitizer pass: case_ids in tests/harness/lib.sh), the three compiled sources and twelve hand-written candidates
# (correct in another way, wrong, raising, returning floats where ints are
# expected, other types) are graded; for every candidate whose every call
# returned a value of an exact JSON type, the result's observation is byte for
# byte what `failmap reference CASE --strategy broken`, with its solve replaced
# by the candidate's source, prints under python3 — and the verdict, the
# passed flags and same_as agree with that document.
needs_repairs  # the candidates are built from the repaired sources
expect_status 0 "$FAILMAP" import "$SRC/cases/"
case_ids > ids.txt
mkdir refs
while read -r id; do
  for s in broken unsuccessful repaired; do "$FAILMAP" reference "$id" --strategy "$s" > "refs/$id.$s.py"; done
done < ids.txt
python3 - <<'PY'
import json, os
HEAD, TAIL = "observations = []\n", "def check("
def solve_of(script):
    return script[script.index(HEAD) + len(HEAD):script.index(TAIL)]
WRAPPERS = {
    "indirect": "def solve(*a):\n    return _impl(*a)\n",
    "floats": "def solve(*a):\n    r = _impl(*a)\n    return float(r) if type(r) is int else r\n",
    "off_by_one": "def solve(*a):\n    r = _impl(*a)\n    return r + 1 if type(r) in (int, float) else r\n",
    "reversed": "def solve(*a):\n    r = _impl(*a)\n    return r[::-1] if type(r) is list else -r if type(r) in (int, float) else r\n",
    "raising": "def solve(*a):\n    raise ValueError('candidate gave up')\n",
    "raising_on_empty": "def solve(*a):\n    if not a[0]:\n        raise IndexError('empty input')\n    return _impl(*a)\n",
    "none": "def solve(*a):\n    return None\n",
    "arguments": "def solve(*a):\n    return list(a)\n",
    "string": "def solve(*a):\n    return str(_impl(*a))\n",
    "tuple": "def solve(*a):\n    r = _impl(*a)\n    return tuple(r) if type(r) is list else (r,)\n",
    "dict": "def solve(*a):\n    return {'value': _impl(*a), 'n': len(a)}\n",
    "mutating": "def solve(*a):\n    r = _impl(*a)\n    if a and type(a[0]) is list:\n        a[0].append(0)\n    return r\n",
}
rows = []
for cid in open("ids.txt").read().split():
    refs = {s: open(f"refs/{cid}.{s}.py").read() for s in ("broken", "unsuccessful", "repaired")}
    for s, script in refs.items():
        rows.append({"case": cid, "model": s, "source": solve_of(script)})
    impl = solve_of(refs["repaired"]).replace("def solve(", "def _impl(", 1)
    for name, wrapper in WRAPPERS.items():
        rows.append({"case": cid, "model": name, "source": impl + wrapper})
with open("predictions.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
print(len(rows), "predictions")
PY
expect_status 0 "$FAILMAP" grade predictions.jsonl --out graded --jobs 2
python3 - <<'PY'
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
HEAD, TAIL = "observations = []\n", "def check("
preds = [json.loads(l) for l in open("predictions.jsonl")]
results = [json.loads(l) for l in open("graded/results.jsonl")]
assert len(preds) == len(results), (len(preds), len(results))
def oracle(i):
    p, r = preds[i], results[i]
    assert (p["case"], p["model"]) == (r["case"], r["model"]), (p, r)
    script = open(f"refs/{p['case']}.broken.py").read()
    script = script[:script.index(HEAD) + len(HEAD)] + p["source"] + script[script.index(TAIL):]
    out = subprocess.run([sys.executable, "-c", script], capture_output=True)
    return out
with ThreadPoolExecutor(2) as ex:
    oracles = list(ex.map(oracle, range(len(preds))))
compared = 0
for p, r, out in zip(preds, results, oracles):
    where = f"{p['case']} {p['model']}"
    returned = all(c["reached"] and c["exception"] is None and c["refused"] is None for c in r["checks"])
    if p["model"] in ("raising", "tuple"):
        assert not returned, where
    if p["model"] in ("indirect", "repaired"):
        assert r["verdict"] == "resolved", (where, r["verdict"], r["error"])
    if p["model"] == "broken":
        assert r["same_as"] == "broken", (where, r["same_as"])
    if p["model"] == "unsuccessful":
        assert r["same_as"] == "unsuccessful", (where, r["same_as"])
    if not returned:
        assert r["verdict"] in ("unresolved", "partial", "error"), where
        continue
    # The oracle: the reference script with this solve, run by python3.
    assert out.returncode in (0, 1), (where, out.returncode, out.stderr[-300:])
    assert out.stdout == r["observation"].encode("utf-8") + b"\n", (where, out.stdout[:300], r["observation"][:300])
    doc = json.loads(out.stdout)
    assert [c["passed"] for c in r["checks"]] == [o["passed"] for o in doc["observations"]], where
    assert (r["verdict"] == "resolved") == doc["passed"] == (out.returncode == 0), (where, r["verdict"])
    import hashlib
    assert r["observation_sha256"] == hashlib.sha256(out.stdout.rstrip(b"\n")).hexdigest(), where
    compared += 1
cases = len({p["case"] for p in preds})
assert compared >= 10 * cases, (compared, cases)
print(f"compared {compared} of {len(preds)} graded candidates byte for byte with python3 over {cases} cases")
PY
