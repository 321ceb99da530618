#!/usr/bin/env bash
# Speed of `failmap run --all` on a 100,000-case archive of the seed mechanism
# (N = 1..100000, 300,000 runs), beside what a user would otherwise write: one
# CPython process running the three reference solve functions, json.dumps per
# document, hashlib.sha256, without storage and with sqlite3 executemany.
# Usage: bench/run_bench.sh [CASES] (default 100000). Prints figures only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
FAILMAP=${FAILMAP:-$here/../build/failmap}
cases=${1:-100000}
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$FAILMAP" --db "$work/base.db" import "$here/../cases/FA-98921.json" >/dev/null
python3 "$here/gen_cases.py" sqlite "$work/base.db" 1 "$cases"
sqlite3 "$work/base.db" "DELETE FROM cases WHERE id = 'FA-98921'; VACUUM;"
runs=$((cases * 3))
base_bytes=$(stat -c %s "$work/base.db")

now() { date +%s.%N; }
rate() { python3 -c "print(f'{$1 / ($3 - $2):>12,.0f}')"; }
timed_run() {  # LABEL ARGS...: prints runs/s of run --all
  local label=$1; shift
  cp "$work/base.db" "$work/t.db"
  local t0 t1; t0=$(now)
  "$FAILMAP" --db "$work/t.db" --quiet run --all "$@" >/dev/null
  t1=$(now)
  printf '%-44s %s runs/s\n' "$label" "$(rate $runs $t0 $t1)"
}

echo "failmap run --all over $cases cases ($runs runs), $(nproc) CPU(s)"
timed_run "failmap --jobs 1 --no-record" --no-record --jobs 1
timed_run "failmap --jobs 2 --no-record" --no-record --jobs 2
timed_run "failmap --jobs 1 (recorded)" --jobs 1
timed_run "failmap --jobs 2 (recorded)" --jobs 2
sqlite3 "$work/t.db" "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;" >/dev/null
after_bytes=$(stat -c %s "$work/t.db")
run_bytes=$(sqlite3 "$work/t.db" "SELECT sum(pgsize) FROM dbstat WHERE name IN ('runs', 'sqlite_autoindex_runs_1')" 2>/dev/null || echo 0)

python3 - "$cases" "$work/py.db" <<'PY'
import hashlib, json, os, sqlite3, sys, time
cases, path = int(sys.argv[1]), sys.argv[2]
T = [("short final batch", lambda N: ([N, N, 1], 2 * N), lambda N: 2 * N + 1),
     ("all full batches", lambda N: ([N, N], N), lambda N: 2 * N),
     ("single short", lambda N: ([1], N + 1), lambda N: 1),
     ("empty", lambda N: ([], N), lambda N: 0),
     ("oversized batch", lambda N: ([3 * N], N), lambda N: 3 * N),
     ("mixed remainder", lambda N: ([2 * N, N - 1], N + 1), lambda N: 3 * N - 1),
     ("unit batch", lambda N: ([1, 1, 1], 2), lambda N: 3)]
def broken(batch_sizes, target): return sum(size for size in batch_sizes if size == target)
def unsuccessful(batch_sizes, target): return sum(batch_sizes) - (sum(batch_sizes) % target if target else 0)
def repaired(batch_sizes, target): return sum(batch_sizes)
S = [("broken", broken), ("unsuccessful", unsuccessful), ("repaired", repaired)]
fixtures = [[(l, a(n), e(n)) for l, a, e in T] for n in range(1, cases + 1)]
def runs():
    for n, fx in enumerate(fixtures, 1):
        for name, solve in S:
            obs = []
            for label, args, expected in fx:
                actual = solve(*args)
                obs.append({"check": label, "actual": actual, "expected": expected, "passed": actual == expected})
            doc = json.dumps({"observations": obs, "passed": all(o["passed"] for o in obs)}, ensure_ascii=False)
            yield ("GEN-%06d" % n, name, doc, 0 if all(o["passed"] for o in obs) else 1,
                   hashlib.sha256(doc.encode()).hexdigest())
t0 = time.time(); n = sum(1 for _ in runs()); t1 = time.time()
print(f"{'CPython 3 json.dumps + hashlib, no storage':<44} {n / (t1 - t0):>12,.0f} runs/s")
if os.path.exists(path): os.remove(path)
db = sqlite3.connect(path)
db.execute("CREATE TABLE runs (case_id TEXT, strategy TEXT, observation TEXT, exit_status INTEGER, digest TEXT, "
           "PRIMARY KEY (case_id, strategy))")
t0 = time.time()
with db: db.executemany("INSERT INTO runs VALUES (?,?,?,?,?)", runs())
t1 = time.time()
db.execute("VACUUM"); db.close()
print(f"{'CPython 3 + sqlite3 executemany (stored)':<44} {n / (t1 - t0):>12,.0f} runs/s")
print(f"{'CPython layout, bytes per stored run':<44} {os.path.getsize(path) / n:>12,.0f}")
PY
printf '%-44s %12s\n' "failmap archive growth per recorded run" "$(( (after_bytes - base_bytes) / runs ))"
[ "$run_bytes" != 0 ] && printf '%-44s %12s\n' "failmap runs table bytes per run (dbstat)" "$(( run_bytes / runs ))"
true
