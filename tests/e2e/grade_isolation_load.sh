# CPU time decides `timeout`, not the machine's load: candidates that use a
# fifth of their CPU budget (--timeout 2; they spin until time.process_time()
# reaches 0.4 s) get the same verdicts on this machine as it is and with
# four busy loops per core started by this test (stopped when it ends), which
# stretch their wall time several times over. A candidate that spins past
# its budget times out in both, with the CPU message; one that sleeps past
# the wall safety net (5 x 2 + 5 s) times out with the wall message.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
spin = ("import time\n"
        "def solve(batch_sizes, target):\n"
        "    while time.process_time() < {limit}:\n"
        "        pass\n"
        "    return sum(batch_sizes)\n")
rows = [("quarter-a", spin.format(limit=0.4)), ("quarter-b", spin.format(limit=0.4) + "# b\n"),
        ("over", spin.format(limit=5)),
        ("sleeper", "import time\ndef solve(batch_sizes, target):\n    time.sleep(60)\n")]
with open("load.jsonl", "w") as f:
    for model, src in rows:
        f.write(json.dumps({"case": "FA-98921", "model": model, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade load.jsonl --out idle --jobs 2 --no-record --timeout 2
loops=()
stop_loops() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_loops EXIT
cores=$(nproc)
for _ in $(seq $((4 * cores))); do
  python3 -c 'while True: pass' &
  loops+=($!)
done
expect_status 0 "$FAILMAP" grade load.jsonl --out busy --jobs 2 --no-record --timeout 2
stop_loops
python3 - idle/results.jsonl busy/results.jsonl <<'PY'
import json, sys
idle = [json.loads(l) for l in open(sys.argv[1])]
busy = [json.loads(l) for l in open(sys.argv[2])]
verdicts = lambda rows: [(r["model"], r["verdict"], r["error"] and r["error"]["kind"]) for r in rows]
assert verdicts(idle) == verdicts(busy), (verdicts(idle), verdicts(busy))
v = {r["model"]: r for r in idle}
assert v["quarter-a"]["error"] is None and v["quarter-b"]["error"] is None, (v["quarter-a"]["error"], v["quarter-b"]["error"])
assert v["over"]["error"]["kind"] == "timeout" and "CPU budget of 2.0 s" in v["over"]["error"]["message"], v["over"]["error"]
assert v["over"]["cpu"] == ">=1", v["over"]["cpu"]
assert v["sleeper"]["error"]["kind"] == "timeout" and "wall-clock safety net of 15.0 s" in v["sleeper"]["error"]["message"], v["sleeper"]["error"]
print("load: the same verdicts idle and with", "busy loops:", verdicts(idle))
PY
