#!/usr/bin/env bash
# Speed of `failmap serve` beside `failmap grade` on the same predictions, in the same run, at the same
# --jobs (JOBS, default 2):
#   grade   failmap grade --no-record --jobs JOBS over PREDICTIONS (default 2048) predictions
#   serve   failmap serve --jobs JOBS on 127.0.0.1; 8 client threads (keep-alive connections) each send
#           its share of the same predictions in batches of 64 (POST /v1/grade, JSON Lines); candidates/s
#           from the first request to the last answer
#   single  meanwhile a 9th client sends single-prediction requests one after another; the p50 and p99 of
#           their latency under that load (and, before the load, of 50 requests on an idle server)
# The predictions cycle over the shipped cases: per case its broken, unsuccessful and repaired sources
# (`failmap reference`), samples numbered so that no (case, model, sample) repeats. Every answer is checked
# against grade's results line for line (the bytes, `line` apart). Loopback only. Prints figures only.
# Usage: bench/serve_bench.sh [PREDICTIONS] [JOBS]   (FAILMAP=path/to/failmap, default build/failmap)
set -euo pipefail
n=${1:-2048}
jobs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
failmap=$(readlink -f "${FAILMAP:-$root/build/failmap}")
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-serve-bench.XXXXXX")
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
export FAILMAP_DB=$work/bench.db
"$failmap" -q import "$root/cases/" >/dev/null
"$failmap" list --json | python3 -c 'import json,sys; [print(json.loads(l)["id"]) for l in sys.stdin]' > ids.txt
mkdir refs
while read -r id; do
  for s in broken unsuccessful repaired; do "$failmap" reference "$id" --strategy "$s" > "refs/$id.$s.py"; done
done < ids.txt
python3 - "$n" <<'PY'
import itertools, json, sys
n = int(sys.argv[1])
HEAD, TAIL = "observations = []\n", "def check("
rows = []
for cid in open("ids.txt").read().split():
    for s in ("broken", "unsuccessful", "repaired"):
        script = open(f"refs/{cid}.{s}.py").read()
        rows.append((cid, s, script[script.index(HEAD) + len(HEAD):script.index(TAIL)]))
with open("predictions.jsonl", "w") as f:
    for i, (cid, s, src) in zip(range(n), itertools.cycle(rows)):
        f.write(json.dumps({"case": cid, "model": s, "sample": i // len(rows), "source": src}) + "\n")
PY
load=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s.%N)
"$failmap" grade predictions.jsonl --out graded --no-record --jobs "$jobs" >/dev/null
grade_s=$(echo "$(date +%s.%N) - $start" | bc)

"$failmap" serve --listen 127.0.0.1:0 --jobs "$jobs" --max-queue 100000 > serve.log 2>&1 &
server=$!
for _ in $(seq 1 600); do grep -q "^failmap: serving" serve.log && break; sleep 0.1; done
port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' serve.log)
[ -n "$port" ] || { cat serve.log; exit 1; }
python3 - "$port" "$grade_s" "$n" "$jobs" "$load" <<'PY'
import http.client, json, statistics, sys, threading, time
port, grade_s, n, jobs, load = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = open("predictions.jsonl", encoding="utf-8").read().splitlines()
expected = open("graded/results.jsonl", encoding="utf-8").read().splitlines()
def without_line(l):
    d = json.loads(l); d.pop("line"); return d

def post(conn, body):
    conn.request("POST", "/v1/grade", body=body.encode(), headers={"Content-Type": "application/jsonl"})
    r = conn.getresponse()
    data = r.read()
    assert r.status == 200, (r.status, data[:300])
    return data.decode().splitlines()

def singles(count, out, stop=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    i = 0
    while (stop is None and i < count) or (stop is not None and not stop.is_set()):
        k = i % len(lines)
        t = time.perf_counter()
        got = post(conn, lines[k] + "\n")
        out.append(time.perf_counter() - t)
        assert without_line(got[0]) == without_line(expected[k]), k
        i += 1

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

idle = []
singles(50, idle)

batches = [list(range(i, min(i + 64, n))) for i in range(0, n, 64)]
shares = [batches[c::8] for c in range(8)]
errors = []
def client(share):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        for b in share:
            got = post(conn, "\n".join(lines[i] for i in b) + "\n")
            assert len(got) == len(b)
            for k, i in enumerate(b):
                assert without_line(got[k]) == without_line(expected[i]), i
    except Exception as e:  # reported below
        errors.append(repr(e))
under = []
stop = threading.Event()
probe = threading.Thread(target=singles, args=(0, under, stop))
threads = [threading.Thread(target=client, args=(s,)) for s in shares]
t0 = time.perf_counter()
probe.start()
for t in threads:
    t.start()
for t in threads:
    t.join()
serve_s = time.perf_counter() - t0
stop.set()
probe.join()
assert not errors, errors[:3]
print(f"failmap serve bench: {n} predictions over the shipped cases, --jobs {jobs}, load at start {load}")
print(f"  grade --no-record --jobs {jobs}                     {n:6d} cand.  {grade_s:7.2f} s  {n / grade_s:7.1f} cand/s")
print(f"  serve, 8 clients x batches of 64              {n:6d} cand.  {serve_s:7.2f} s  {n / serve_s:7.1f} cand/s"
      f"  ({n / serve_s / (n / grade_s):.2f}x grade)")
served = n + len(under)
print(f"  serve, counting the single requests' too     {served:6d} cand.  {serve_s:7.2f} s  {served / serve_s:7.1f} cand/s"
      f"  ({served / serve_s / (n / grade_s):.2f}x grade)")
print(f"  single-prediction requests, idle server       {len(idle):6d} req.   p50 {pct(idle, 50) * 1000:7.1f} ms  p99 {pct(idle, 99) * 1000:7.1f} ms")
print(f"  single-prediction requests, under that load   {len(under):6d} req.   p50 {pct(under, 50) * 1000:7.1f} ms  p99 {pct(under, 99) * 1000:7.1f} ms")
PY
kill -TERM "$server"; wait "$server" || true; server=""
echo "  load at end $(cut -d' ' -f1 /proc/loadavg)"
