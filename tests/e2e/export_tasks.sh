# export --format tasks: tasks.jsonl, one self-contained task record per case (schema/TASKS.md), read with
# pandas.read_json(lines=True); each task's broken and unsuccessful sources, run under python3 with its
# fixtures, fail exactly the checks the record lists; the member tier adds repaired_source, which passes them all.
PY=python3
$PY -c 'import pandas' 2>/dev/null || PY=/usr/bin/python3   # Debian's python3-pandas (scripts/install-deps.sh)
$PY -c 'import pandas' || fail "pandas is not installed (python3-pandas)"
expect_status 0 "$FAILMAP" import "$SRC/cases"
expect_status 0 "$FAILMAP" export --format tasks --out open
[ "$err" = "exported $SHIPPED task(s) at the open tier to open (check: failmap verify-bundle open)" ] || fail "report: $err"
(cd open && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
[ "$(ls open | tr '\n' ' ')" = "SHA256SUMS manifest.json tasks.jsonl " ] || fail "files: $(ls open)"
expect_status 0 "$FAILMAP" export --format tasks --jobs 1 --out open1
expect_status 0 "$FAILMAP" export --format tasks --jobs 7 --out open7
cmp open/tasks.jsonl open1/tasks.jsonl && cmp open/tasks.jsonl open7/tasks.jsonl || fail "tasks differ between --jobs values"
cmp open/manifest.json open7/manifest.json || fail "manifests differ between --jobs values"

check_tasks() {  # check_tasks DIR TIER: every shipped case (cases/*.json) is one task
  "$PY" - "$1" "$2" "$SRC/cases" <<'PY' || fail "task records of $1"
import glob, json, sys
import pandas as pd
folder, tier = sys.argv[1], sys.argv[2]
shipped = [json.load(open(f, encoding="utf-8")) for f in glob.glob(f"{sys.argv[3]}/*.json")]
manifest = json.load(open(f"{folder}/manifest.json"))
assert manifest["format"] == "failmap-tasks" and manifest["counts"] == {"task": len(shipped)}, manifest
assert manifest["files"] == ["tasks.jsonl"], manifest
df = pd.read_json(f"{folder}/tasks.jsonl", lines=True, dtype=False, precise_float=True)
columns = ["task_id", "case_tier", "mechanism", "evaluation_group", "unit", "variant", "params", "title",
           "contract", "failure", "why_it_matters", "scope", "signature", "broken_source", "fixtures",
           "failing_checks", "unsuccessful_source", "unsuccessful_failing_checks", "prompt"]
if tier == "member":
    columns.append("repaired_source")
assert list(df.columns) == columns, list(df.columns)
assert len(df) == len(shipped) and list(df.task_id) == sorted(df.task_id), list(df.task_id)
assert sorted(df.task_id) == sorted(c["id"] for c in shipped), list(df.task_id)
assert set(df.mechanism) == {c["mechanism"] for c in shipped}, sorted(set(df.mechanism))
# FA-98921, the published case: its values as the seed page shows them.
t = df.set_index("task_id").loc["FA-98921"]
assert t.mechanism == "gradient-accumulation-weighting" and t.variant == 1 and t.case_tier == "open", t
assert t.unit == "group:gradient-accumulation" and t.evaluation_group == ["gradient-accumulation"], (t.unit, t.evaluation_group)
assert t.params == {"N": 1}, t.params
assert t.title == "The final short batch is discarded from accumulation", t.title
assert t.signature == "def solve(batch_sizes, target):", t.signature
assert t.broken_source == "def solve(batch_sizes, target):\n    return sum(size for size in batch_sizes if size == target)\n"
assert t.fixtures[0] == {"label": "short final batch", "args": "[N,N,1],2*N", "expected": 3}, t.fixtures[0]
assert [f["label"] for f in t.fixtures] == ["short final batch", "all full batches", "single short", "empty",
                                           "oversized batch", "mixed remainder", "unit batch"]
assert t.failing_checks == [{"label": "short final batch", "actual": 0, "expected": 3},
                            {"label": "single short", "actual": 0, "expected": 1},
                            {"label": "oversized batch", "actual": 0, "expected": 3},
                            {"label": "unit batch", "actual": 0, "expected": 3}], t.failing_checks
assert "- short final batch: returned 0, expected 3\n" in t.prompt and "check('empty', solve([],N), 0)\n" in t.prompt
assert t.prompt.endswith("defining\ndef solve(batch_sizes, target):\n"), t.prompt[-80:]
# No member holds JSON text: every string is prose or Python.
for name in columns:
    for v in df[name]:
        if isinstance(v, str):
            try:
                parsed = json.loads(v)
            except ValueError:
                continue
            assert not isinstance(parsed, (dict, list)), (name, v)

def failures(source, task):
    scope = {}
    for name, value in task.params.items():
        scope[name] = value
    exec(source, scope)
    out = []
    for f in task.fixtures:
        actual = eval("solve(" + f["args"] + ")", scope)
        if not actual == f["expected"]:
            out.append({"label": f["label"], "actual": json.loads(json.dumps(actual)), "expected": f["expected"]})
    return out
for _, task in df.iterrows():
    assert failures(task.broken_source, task) == task.failing_checks, task.task_id
    assert task.failing_checks, task.task_id
    assert failures(task.unsuccessful_source, task) == task.unsuccessful_failing_checks, task.task_id
    assert task.unsuccessful_failing_checks, task.task_id
    if tier == "member":
        assert failures(task.repaired_source, task) == [], task.task_id
print("checked", len(df), "tasks")
PY
}
check_tasks open open
grep -q repaired open/tasks.jsonl && fail "the open tier names the repair"

# A template of one's own; one that names an unknown placeholder is refused with its line.
printf 'Case {{task_id}} ({{title}})\nWrite {{signature}}\n' > prompt.txt
expect_status 0 "$FAILMAP" export --format tasks --prompt-template prompt.txt --out custom FA-98921
"$PY" -c 'import json,sys; t=json.loads(open("custom/tasks.jsonl").readline()); sys.exit(t["prompt"] != "Case FA-98921 (The final short batch is discarded from accumulation)\nWrite def solve(batch_sizes, target):\n")' ||
  fail "custom prompt: $(cat custom/tasks.jsonl)"
printf 'ok\nsee {{contract}} and {{answer}}\n' > bad.txt
expect_status 2 "$FAILMAP" export --format tasks --prompt-template bad.txt --out bad
grep -qx "failmap: error: bad.txt:2: unknown placeholder '{{answer}}' (expected one of task_id, title, contract, failure, why_it_matters, scope, signature, broken_source, params, checks, failing_checks)" stderr.txt || fail "bad template: $err"
[ ! -e bad ] || fail "a refused export left a folder"
printf 'x {{title\n}}' > open.txt
expect_status 2 "$FAILMAP" export --format tasks --prompt-template open.txt --out bad
expect_error_mentions "open.txt:1: '{{' without its '}}' on the same line"
expect_status 2 "$FAILMAP" export --format jsonl --prompt-template prompt.txt --out bad
expect_error_mentions "--prompt-template: only with --format tasks"

needs_repairs
expect_status 0 "$FAILMAP" export --format tasks --tier member --out member
check_tasks member member
