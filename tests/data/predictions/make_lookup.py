#!/usr/bin/env python3
"""Predictions of three stand-in models for the tasks of a split (schema/TASKS.md),
for the README's tour and tests/e2e/grade_intervals.sh:
  lookup       a cheater: a table of the visible fixtures' answers (resolves every
               task, holds at no held-out binding);
  echo-broken  hands back the broken source (resolves nothing);
  some-lookup  with --partial N only: the cheater on the first N tasks (coverage N of the split).
Usage: make_lookup.py TASKS.jsonl [--partial N] > predictions.jsonl"""
import json
import sys

TEMPLATE = '''import json
_P = json.loads({params!r})
_T = [(eval("(" + a + ",)", dict(_P)), json.loads(e)) for a, e in {table!r}]
{signature}
    args = [v for v in locals().values()]
    for a, e in _T:
        if list(a) == args:
            return e
    return None
'''

tasks = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
partial = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--partial" else 0
for n, t in enumerate(tasks):
    table = [(f["args"], json.dumps(f["expected"])) for f in t["fixtures"]]
    lookup = TEMPLATE.format(params=json.dumps(t["params"]), table=table, signature=t["signature"])
    print(json.dumps({"case": t["task_id"], "model": "lookup", "source": lookup}))
    print(json.dumps({"case": t["task_id"], "model": "echo-broken", "source": t["broken_source"]}))
    if n < partial:
        print(json.dumps({"case": t["task_id"], "model": "some-lookup", "source": lookup}))
