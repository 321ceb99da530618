# `grade --timeout calibrated[:F]` (schema/GRADING.md "Limits"): each case's CPU budget is
# max(1 s, F x T) rounded up to a power of two seconds, T the larger CPU time of the case's own broken
# and unsuccessful sources. Here T is measured independently: those sources, as `failmap reference`
# prints them, graded as candidates under `--timeout 10`, their CPU times read from cpu.jsonl; the rule
# applied to them must give the budget summary.json records (FA-98921's sources take milliseconds: 1.0).
# A candidate that spins 1.5 s of CPU times out on that case, its message naming 1.0 s, and resolves
# under `--timeout 10`; two runs give the same bytes, and so do two shards merged; the record's key
# holds the budget, so a grading under `--timeout 1` (the same budget) recalls the calibrated one's
# records and `--timeout 2` does not.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
for s in broken unsuccessful; do
  expect_status 0 "$FAILMAP" reference FA-98921 --strategy "$s"
  cp stdout.txt "ref-$s.py"
done
python3 - <<'PY'
import json
correct = "    total = 0\n    for size in batch_sizes:\n        total += size\n    return total\n"
spin = "import time\ndef solve(batch_sizes, target):\n    while time.process_time() < 1.5:\n        pass\n" + correct
rows = [("spin", spin), ("quick", "def solve(batch_sizes, target):\n" + correct)]
with open("preds.jsonl", "w") as f:
    for model, src in rows:
        f.write(json.dumps({"case": "FA-98921", "model": model, "sample": 0, "source": src}) + "\n")
# The case's own sources: the reference script up to its checks (parameters, then the strategy).
with open("refs.jsonl", "w") as f:
    for s in ("broken", "unsuccessful"):
        script = open(f"ref-{s}.py").read()
        f.write(json.dumps({"case": "FA-98921", "model": s, "sample": 0,
                            "source": script[:script.index("def check(")]}) + "\n")
PY
expect_status 0 "$FAILMAP" grade refs.jsonl --out refs --no-record --timeout 10
expect_status 0 "$FAILMAP" grade preds.jsonl --out c1 --no-record --timeout calibrated
expect_status 0 "$FAILMAP" grade preds.jsonl --out c2 --no-record --timeout calibrated:10
cmp c1/results.jsonl c2/results.jsonl || fail "results.jsonl differs between two calibrated runs"
cmp c1/summary.json c2/summary.json || fail "summary.json differs between two calibrated runs"
expect_status 0 "$FAILMAP" grade preds.jsonl --out fixed --no-record --timeout 10
python3 - refs/results.jsonl refs/cpu.jsonl c1/results.jsonl c1/summary.json c1/cpu.jsonl fixed/results.jsonl <<'PY'
import json, math, sys
rows = lambda p: [json.loads(l) for l in open(p)]
refs, ref_cpu, cal, summary, cal_cpu, fixed = (rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3]),
                                               json.load(open(sys.argv[4])), rows(sys.argv[5]), rows(sys.argv[6]))
# The sources measured are the case's own: their observations are the strategies'.
assert [r["same_as"] for r in refs] == ["broken", "unsuccessful"], [r["same_as"] for r in refs]
t = max(c["cpu_seconds"] for c in ref_cpu)
assert t < 0.05, t  # clear of the grid edge at F x T = 1 s: the budget cannot flip between runs
budget = min(3600.0, 2.0 ** math.ceil(math.log2(max(1.0, 10 * t))))
assert summary["timeout"] == "calibrated:10", summary.get("timeout")
assert summary["cpu_budgets"] == {"FA-98921": budget} == {"FA-98921": 1.0}, summary["cpu_budgets"]
keys = list(summary)
assert keys.index("split") < keys.index("timeout") < keys.index("cpu_budgets") < keys.index("split_cases"), keys
spin, quick = cal
assert spin["verdict"] == "error" and spin["error"] == {
    "kind": "timeout", "message": "the candidate used its CPU budget of 1.0 s (user + system time)"}, spin["error"]
assert quick["verdict"] == "resolved", quick["verdict"]
# cpu.jsonl's share is of the case's budget: the spinner used all of its 1 s.
assert cal_cpu[0]["share"] == ">=1" and 1.0 <= cal_cpu[0]["cpu_seconds"] < 1.5, cal_cpu[0]
assert [r["verdict"] for r in fixed] == ["resolved", "resolved"], [r["verdict"] for r in fixed]
fixed_summary = json.load(open(sys.argv[4].replace("c1", "fixed")))
assert "timeout" not in fixed_summary and "cpu_budgets" not in fixed_summary, list(fixed_summary)
print("calibrated: budget", budget, "from T =", t)
PY
# Shards calibrate the cases they grade; merged, they give the unsharded run's bytes.
expect_status 0 "$FAILMAP" grade preds.jsonl --out s1 --no-record --timeout calibrated --shard 1/2
expect_status 0 "$FAILMAP" grade preds.jsonl --out s2 --no-record --timeout calibrated --shard 2/2
expect_status 0 "$FAILMAP" grade merge s1 s2 --out merged
cmp merged/results.jsonl c1/results.jsonl || fail "merged results.jsonl differs from the unsharded run's"
cmp merged/summary.json c1/summary.json || fail "merged summary.json differs from the unsharded run's"
expect_status 0 "$FAILMAP" grade preds.jsonl --out s2fixed --no-record --timeout 10 --shard 2/2
expect_status 2 "$FAILMAP" grade merge s1 s2fixed --out mixed
case "$err" in *"field 'timeout'"*"not shards of one grading"*) ;; *) fail "calibrated and fixed shards merged: $err" ;; esac
# The record: the quick candidate's grading is kept under its case's budget (1 s, wall 10 s).
expect_status 0 "$FAILMAP" grade preds.jsonl --out r1 --timeout calibrated
expect_status 0 "$FAILMAP" grade preds.jsonl --out r2 --timeout 1
expect_status 0 "$FAILMAP" grade preds.jsonl --out r3 --timeout 2
python3 - r1/record.json r2/record.json r3/record.json <<'PY'
import json, sys
r1, r2, r3 = (json.load(open(p)) for p in sys.argv[1:])
assert r1["recorded"] == 1 and r1["recalled_lines"] == [], r1  # the timeout is not recorded
assert r2["recalled_lines"] == [2], r2  # --timeout 1: the same budget, the same key
assert r3["recalled_lines"] == [] and r3["recorded"] == 2, r3  # --timeout 2: another budget (the spinner resolves)
PY
cmp r1/results.jsonl c1/results.jsonl || fail "a recording run differs from a --no-record one"
# Bad factors are refused by name, nothing written.
for v in calibrated:0 calibrated:x calibrated: calibrated:1001 calibratedx; do
  expect_status 2 "$FAILMAP" grade preds.jsonl --out bad --timeout "$v"
  [ "$err" = "failmap: error: --timeout: expected calibrated or calibrated:F with F a factor greater than 0 and at most 1000, got '$v'
Run 'failmap grade --help' for usage." ] || fail "--timeout $v said: $err"
done
[ ! -e bad ] || fail "a refused grading wrote its folder"
