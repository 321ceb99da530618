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
stop_loops() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done; }  # a loop already ended is fine
trap stop_loops EXIT
cores=$(nproc)
for _ in $(seq $((4 * cores))); do
  python3 -c 'while True: pass' &
  loops+=($!)
done
expect_status 0 "$FAILMAP" grade load.jsonl --out busy --jobs 2 --no-record --timeout 2
stop_loops
# cpu.jsonl is outside the byte-identity promise: neither SHA256SUMS nor the manifest lists it.
for d in idle busy; do
  [ -f "$d/cpu.jsonl" ] || fail "$d has no cpu.jsonl"
  ! grep -q "cpu.jsonl" "$d/SHA256SUMS" "$d/manifest.json" || fail "$d lists cpu.jsonl"
  expect_status 0 "$FAILMAP" verify-bundle "$d"
done
cmp idle/results.jsonl busy/results.jsonl || fail "results.jsonl differs between an idle and a busy machine"
python3 - idle/results.jsonl busy/results.jsonl idle/cpu.jsonl <<'PY'
import json, sys
idle = [json.loads(l) for l in open(sys.argv[1])]
busy = [json.loads(l) for l in open(sys.argv[2])]
cpu = [json.loads(l) for l in open(sys.argv[3])]
# cpu.jsonl: one line per results line, in its order; results lines say nothing of CPU time.
assert [c["line"] for c in cpu] == [r["line"] for r in idle] == [1, 2, 3, 4], (cpu, [r["line"] for r in idle])
assert all("cpu" not in r for r in idle + busy)
by_model = {r["model"]: c for r, c in zip(idle, cpu)}
verdicts = lambda rows: [(r["model"], r["verdict"], r["error"] and r["error"]["kind"]) for r in rows]
assert verdicts(idle) == verdicts(busy), (verdicts(idle), verdicts(busy))
v = {r["model"]: r for r in idle}
assert v["quarter-a"]["error"] is None and v["quarter-b"]["error"] is None, (v["quarter-a"]["error"], v["quarter-b"]["error"])
assert v["over"]["error"]["kind"] == "timeout" and "CPU budget of 2.0 s" in v["over"]["error"]["message"], v["over"]["error"]
assert by_model["over"]["share"] == ">=1" and by_model["over"]["cpu_seconds"] >= 2.0, by_model["over"]
for m in ("quarter-a", "quarter-b"):  # spun to 0.4 s of CPU time: a fifth of the budget, plus the child's start
    assert 0.4 <= by_model[m]["cpu_seconds"] < 1.0 and by_model[m]["share"] in ("<1/4", "<1/2"), by_model[m]
assert by_model["sleeper"]["cpu_seconds"] < 1.0 and by_model["sleeper"]["share"] in ("<1/16", "<1/4"), by_model["sleeper"]
assert v["sleeper"]["error"]["kind"] == "timeout" and "wall-clock safety net of 15.0 s" in v["sleeper"]["error"]["message"], v["sleeper"]["error"]
print("load: the same verdicts idle and with", "busy loops:", verdicts(idle))
PY
