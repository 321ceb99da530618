# failmap serve grades as failmap grade does: the demo predictions posted as JSON Lines come back as the
# bytes of `grade --no-record`'s results.jsonl, posted as a JSON array as those lines in an array; a third of
# the grading differential set (every third case of case_ids, its three compiled sources and twelve hand-written
# candidates) likewise; 16 concurrent clients each get the same bytes; completions and the binary reward;
# the read-only routes answer what list, show, export --format tasks and mechanisms print.
source "$SRC/tests/harness/serve.sh"
needs_repairs  # the differential candidates are built from the repaired sources
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
before=$(archive_state)
start_server --jobs 2 --max-predictions 2000

# The demo predictions: JSON Lines in, results.jsonl out, byte for byte.
expect_status 0 "$FAILMAP" grade "$PRED" --out g --no-record
curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade" -o served.jsonl ||
  fail "POST /v1/grade: $(cat served.jsonl)"
cmp served.jsonl g/results.jsonl || fail "served results differ from grade's results.jsonl"
# The answer goes out chunked as its lines are graded; to an HTTP/1.0 client, which knows no chunks, whole
# with its Content-Length: the same bytes either way.
curl -sS -D head11.txt -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade" -o /dev/null
grep -qi '^Transfer-Encoding: chunked' head11.txt || fail "an HTTP/1.1 answer not chunked: $(cat head11.txt)"
curl -sS --http1.0 -D head10.txt -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade" -o served10.jsonl
grep -qi "^Content-Length: $(wc -c < g/results.jsonl)" head10.txt && ! grep -qi '^Transfer-Encoding' head10.txt ||
  fail "an HTTP/1.0 answer: $(cat head10.txt)"
cmp served10.jsonl g/results.jsonl || fail "the HTTP/1.0 answer differs from grade's results.jsonl"

# As a JSON array: each element is the line's bytes.
python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])]))' "$PRED" > demo.json
curl -sS --fail-with-body -H 'Content-Type: application/json' --data-binary @demo.json "$URL/v1/grade" -o served.json
python3 - served.json g/results.jsonl <<'PY'
import sys
body = open(sys.argv[1], encoding="utf-8").read()
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
assert body == "[" + ",".join(lines) + "]\n", body[:300]
PY

# 16 concurrent clients, each the demo batch: every answer is the same bytes.
clients=()
for i in $(seq 1 16); do
  curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade" -o "c$i.jsonl" &
  clients+=($!)
done
wait "${clients[@]}"  # (a bare wait would wait for the server too)
for i in $(seq 1 16); do cmp -s "c$i.jsonl" g/results.jsonl || fail "concurrent client $i got other bytes: $(head -c 300 "c$i.jsonl")"; done

# Completions and rewards: the rule's choices, recorded in `extracted`; graded and binary rewards.
python3 - <<'PY'
import json
fix = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
wrong = "def solve(batch_sizes, target):\n    return 0\n"
rows = [
    ("prose", "I think the bug is the mean.\n\n```python\n" + fix + "```\n\nThis sums every batch."),
    ("two_blocks", "First try:\n```python\n" + wrong + "```\nBetter:\n```py\n" + fix + "```\nUsage:\n```python\nprint(solve([1], 1))\n```\n"),
    ("no_fence", fix),
    ("bare_fence", "```\n" + fix + "```"),
    ("no_solve", "Use this helper:\n```python\ndef helper(x):\n    return x\n```\n"),
    ("wrong", "```python\n" + wrong + "```"),
]
with open("completions.jsonl", "w") as f:
    for i, (name, text) in enumerate(rows):
        f.write(json.dumps({"case": "FA-98921", "model": name, "sample": i, "completion": text}) + "\n")
PY
expect_status 0 "$FAILMAP" grade completions.jsonl --out gc --no-record
curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @completions.jsonl "$URL/v1/grade" -o served_c.jsonl
cmp served_c.jsonl gc/results.jsonl || fail "served completion results differ from grade's"
curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @completions.jsonl "$URL/v1/grade?reward=binary" \
  -o served_b.jsonl
python3 - gc/results.jsonl served_b.jsonl <<'PY'
import hashlib, json, sys
r = {x["model"]: x for x in map(json.loads, open(sys.argv[1]))}
b = {x["model"]: x for x in map(json.loads, open(sys.argv[2]))}
fix = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
assert r["prose"]["extracted"] == {"from": "block", "block": 1, "blocks": 1}, r["prose"]["extracted"]
assert r["two_blocks"]["extracted"] == {"from": "block", "block": 2, "blocks": 3}, r["two_blocks"]["extracted"]
assert r["no_fence"]["extracted"] == {"from": "text", "block": None, "blocks": 0}
assert r["bare_fence"]["extracted"] == {"from": "block", "block": 1, "blocks": 1}
assert r["no_solve"]["extracted"] == {"from": "text", "block": None, "blocks": 1}
for m in ("prose", "two_blocks", "no_fence", "bare_fence"):
    assert r[m]["source_sha256"] == hashlib.sha256(fix.encode()).hexdigest(), m
    assert r[m]["verdict"] == "resolved" and r[m]["reward"] == 1.0, (m, r[m]["verdict"])
# The whole text of no_solve is not valid Python: a syntax error, reward 0.
assert r["no_solve"]["verdict"] == "error" and r["no_solve"]["error"]["kind"] == "syntax" and r["no_solve"]["reward"] == 0.0
# return 0 passes only the check that expects 0 ("empty"): 1 of 7.
w = r["wrong"]
passed = sum(c["passed"] for c in w["checks"])
assert w["verdict"] == "unresolved" and passed == 1 and len(w["checks"]) == 7 and w["reward"] == 1 / 7, (w["verdict"], passed, w["reward"])
assert b["wrong"]["reward"] == 0.0 and b["prose"]["reward"] == 1.0 and b["no_solve"]["reward"] == 0.0
for m in r:
    assert {k: v for k, v in r[m].items() if k != "reward"} == {k: v for k, v in b[m].items() if k != "reward"}, m
PY

# The differential set, every third case (of case_ids: every 24th in the sanitizer pass): grade --no-record
# and one POST give the same bytes.
case_ids | awk 'NR % 3 == 1' > ids.txt
mkdir refs
while read -r id; do
  for s in broken unsuccessful repaired; do "$FAILMAP" reference "$id" --strategy "$s" > "refs/$id.$s.py"; done
done < ids.txt
python3 - <<'PY'
import json
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
with open("differential.jsonl", "w") as f:
    for cid in open("ids.txt").read().split():
        refs = {s: open(f"refs/{cid}.{s}.py").read() for s in ("broken", "unsuccessful", "repaired")}
        for s, script in refs.items():
            f.write(json.dumps({"case": cid, "model": s, "source": solve_of(script)}) + "\n")
        impl = solve_of(refs["repaired"]).replace("def solve(", "def _impl(", 1)
        for name, wrapper in WRAPPERS.items():
            f.write(json.dumps({"case": cid, "model": name, "source": impl + wrapper}) + "\n")
PY
[ "$(wc -l < ids.txt)" -ge 8 ] && [ "$(wc -l < differential.jsonl)" = $((15 * $(wc -l < ids.txt))) ] || fail "the differential subset has $(wc -l < differential.jsonl) predictions"
expect_status 0 "$FAILMAP" grade differential.jsonl --out gd --no-record --jobs 2
curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @differential.jsonl "$URL/v1/grade" -o served_d.jsonl
cmp served_d.jsonl gd/results.jsonl || fail "served differential results differ from grade's"

# The read-only routes.
curl -sS --fail-with-body "$URL/v1/cases?limit=40" -o p1.json
curl -sS --fail-with-body "$URL/v1/cases?limit=40&after=$(python3 -c 'import json; print(json.load(open("p1.json"))["next"])')" -o p2.json
"$FAILMAP" list --json > list.jsonl
curl -sS --fail-with-body "$URL/v1/cases?limit=10000" -o all.json
curl -sS --fail-with-body "$URL/v1/cases?mechanism=gradient-accumulation-weighting" -o gaw.json
curl -sS --fail-with-body "$URL/v1/cases/FA-98921" -o case.json
curl -sS --fail-with-body "$URL/v1/tasks/FA-98921" -o task.json
curl -sS --fail-with-body "$URL/v1/mechanisms" -o mechanisms.json
"$FAILMAP" mechanisms --json > mechanisms.jsonl
expect_status 0 "$FAILMAP" export --format tasks --tier open --out tasks FA-98921
curl -sS --fail-with-body "$URL/healthz" -o health.json
python3 - "$SHIPPED" <<'PY'
import json, sys
shipped = int(sys.argv[1])
listed = [json.loads(l) for l in open("list.jsonl")]
p1, p2, every = (json.load(open(f)) for f in ("p1.json", "p2.json", "all.json"))
assert every["cases"] == listed and every["next"] is None and len(listed) == shipped, (len(every["cases"]), shipped)
assert p1["cases"] == listed[:40] and p1["next"] == listed[39]["id"] and p2["cases"] == listed[40:80], p1["next"]
gaw = json.load(open("gaw.json"))["cases"]
assert gaw == [c for c in listed if c["mechanism"] == "gradient-accumulation-weighting"] and gaw
case = json.load(open("case.json"))
assert case["id"] == "FA-98921" and case["mechanism"] == "gradient-accumulation-weighting", case.get("id")
task = open("task.json").read()
assert task == open("tasks/tasks.jsonl").read().splitlines(True)[0], task[:200]
assert "repaired_source" not in json.loads(task)
assert json.load(open("mechanisms.json"))["mechanisms"] == [json.loads(l) for l in open("mechanisms.jsonl")]
h = json.load(open("health.json"))
assert h == {"status": "ok", "cases": shipped, "jobs": 2, "queue": 0, "sandbox": "bwrap"}, h
PY
expect_status 0 curl -sS -o nf.json -w '%{http_code}' "$URL/v1/tasks/FA-00000"
[ "$out" = 404 ] && grep -q '"no case FA-00000' nf.json || fail "unknown task: $out $(cat nf.json)"
expect_status 0 curl -sS -o nf.json -w '%{http_code}' "$URL/v1/nothing"
[ "$out" = 404 ] && grep -q '"status":404' nf.json || fail "unknown route: $out $(cat nf.json)"

# The metrics count what happened: 4 + 16 demo batches of 6, 2 completion batches of 6, the differential set.
curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
python3 - "$(wc -l < differential.jsonl)" <<'PY'
import re, sys
m = {}
for line in open("metrics.txt"):
    if line.startswith("#") or not line.strip():
        continue
    name, value = line.rsplit(" ", 1)
    m[name] = float(value)
graded = sum(v for k, v in m.items() if k.startswith("failmap_candidates_graded_total"))
assert graded == 20 * 6 + 2 * 6 + int(sys.argv[1]), graded
assert m['failmap_http_requests_total{route="/v1/grade",status="200"}'] == 23, m
assert m['failmap_http_requests_total{route="/v1/tasks/{id}",status="404"}'] == 1
assert m['failmap_grade_request_seconds_count'] == 23 and m['failmap_grade_request_seconds_bucket{le="+Inf"}'] == 23
assert m["failmap_queue_depth"] == 0 and m["failmap_sandbox_restarts_total"] == 0
PY

stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve exited $SERVE_STATUS after SIGTERM: $(cat serve.log)"
expect_no_sandbox_left
[ "$(archive_state)" = "$before" ] || fail "serving changed the archive"
