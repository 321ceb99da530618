# failmap serve against hostile clients and candidates: malformed JSON, a 100 MB body, 100,000 predictions in
# one request, a request head sent one byte a second, unknown cases, a full queue, too many connections, a
# client that hangs up, a sandbox worker killed mid-candidate, the grading tests' hostile candidates, a token,
# SIGTERM while a batch runs. Each gets its status and a JSON error; the server stays up, its peak memory stays
# bounded, no sandbox process is left, the archive is unchanged, and a well-formed request afterwards is graded
# correctly. Every connection is to 127.0.0.1.
source "$SRC/tests/harness/serve.sh"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
before=$(archive_state)
expect_status 0 "$FAILMAP" grade "$PRED" --out demo --no-record
start_server --jobs 2 --timeout 2 --memory 512 --header-timeout 2 --body-timeout 5
MAIN_PID=$SERVE_PID

# status BODY_FILE CONTENT_TYPE [CURL_OPTION...]: POST /v1/grade, prints the HTTP status; the answer in reply.json.
status() {
  local body=$1 type=$2; shift 2
  # curl exits non-zero when the server closes the connection of a refused request; the HTTP code it
  # printed (000 without a reply) is what the callers check.
  curl -sS -o reply.json -w '%{http_code}' -H "Content-Type: $type" --data-binary @"$body" "$@" "$URL/v1/grade" || true
}
expect_refusal() {  # WANT STATUS TEXT: the status and a JSON error naming TEXT
  [ "$2" = "$1" ] || fail "expected $1, got $2: $(head -c 300 reply.json)"
  python3 -c 'import json,sys; e=json.load(open("reply.json"))["error"]; assert e["status"]==int(sys.argv[1]) and sys.argv[2] in json.dumps(e, ensure_ascii=False), e' \
    "$1" "$3" || fail "the $1 answer does not name '$3': $(head -c 300 reply.json)"
}

printf '[{"case": "FA-98921", "model": ' > truncated.json
expect_refusal 400 "$(status truncated.json application/json)" "not a well-formed JSON array"
printf '{"predictions": []}' > object.json
expect_refusal 400 "$(status object.json application/json)" "expected a JSON array of predictions"
printf '{"case": "FA-98921", "model": "m", "source": "x"}\n{"case": "FA-98921", "model": "m", "source": }\n' > badline.jsonl
expect_refusal 400 "$(status badline.jsonl application/jsonl)" "request:2:"
expect_refusal 415 "$(status "$PRED" text/plain)" "application/jsonl"
printf '[{"case": "FA-00000", "model": "m", "source": "x"}, {"case": "FA-98921", "model": "m", "source": "x", "smaple": 1}]' > unknown.json
expect_refusal 422 "$(status unknown.json application/json)" "request:2: field 'smaple'"
printf '[{"case": "FA-00000", "model": "m", "source": "x"}]' > unknown.json
expect_refusal 422 "$(status unknown.json application/json)" "request:1: field 'case': no case FA-00000"
code=$(curl -sS -o reply.json -w '%{http_code}' -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade?reward=share")
expect_refusal 400 "$code" "query 'reward': expected graded or binary"

# 100 MB of body, by Content-Length and chunked: 413; 100,000 predictions (6 MB): 413 before any is parsed.
head -c 100000000 /dev/zero > big.bin
expect_refusal 413 "$(status big.bin application/json)" "larger than"
code=$(status big.bin application/json -H 'Transfer-Encoding: chunked')
[ "$code" = 413 ] || [ "$code" = 000 ] || fail "a chunked 100 MB body: $code"
python3 -c '
import json
with open("many.json", "w") as f:
    f.write("[" + ",".join(json.dumps({"case": "FA-98921", "model": "m", "sample": i, "source": ""}) for i in range(100000)) + "]")'
expect_refusal 413 "$(status many.json application/json)" "100000 predictions in one request; at most 1024"

# A request head sent one byte a second is cut off after --header-timeout (2 s), while others are served.
python3 - "${URL#http://}" <<'PY'
import socket, sys, time, urllib.request
host, port = sys.argv[1].split(":")
s = socket.create_connection((host, int(port)))
start = time.monotonic()
closed_after = None
for b in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 20:
    try:
        s.send(bytes([b]))
    except OSError:
        closed_after = time.monotonic() - start
        break
    s.settimeout(1.0)
    try:
        if s.recv(1) == b"":
            closed_after = time.monotonic() - start
            break
    except socket.timeout:
        pass
    # another client is answered meanwhile
    if time.monotonic() - start < 1.5:
        assert urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=5).status == 200
# Cut off long before the 30 bytes of its head could arrive (the limit is 2 s).
assert closed_after is not None and closed_after < 20, closed_after
print(f"slow head cut off after {closed_after:.1f} s")
PY
# A method no route takes is answered at once with a 404, with or without a body: a head with no framing has
# no body (RFC 9112 section 6.3), so nothing is waited for (--body-timeout is 5 s here).
python3 - "${URL#http://}" <<'PY'
import json, socket, sys, time
host, port = sys.argv[1].split(":")
for head in (b"PUT /healthz HTTP/1.1\r\nHost: x\r\n\r\n", b"PATCH /v1/cases HTTP/1.1\r\nHost: x\r\n\r\n",
             b"POST /v1/cases HTTP/1.1\r\nHost: x\r\n\r\n", b"POST /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
             b"PUT /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"):
    s = socket.create_connection((host, int(port)))
    s.sendall(head)
    s.settimeout(4)
    start, reply = time.monotonic(), b""
    try:
        while b"\r\n\r\n" not in reply or len(reply.split(b"\r\n\r\n", 1)[1]) < int(
                [l for l in reply.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1]):
            got = s.recv(4096)
            if not got:
                break
            reply += got
    except socket.timeout:
        pass
    method, path = head.split(b" ")[:2]
    assert reply.startswith(b"HTTP/1.1 404 "), (head, reply[:200], time.monotonic() - start)
    error = json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]
    assert error == {"status": 404, "error": f"no route {method.decode()} {path.decode()} (schema/SERVE.md lists them)"}, error
    s.close()
print("methods no route takes: 404 at once")
PY
# A head begun and then left unfinished is cut off at --header-timeout too, and counted as timed out (each
# read waits longer than the limits, so the watchdog, which counts, is what ends it).
timed_out() { curl -sS "$URL/metrics" | sed -n 's/^failmap_connections_timed_out_total //p'; }
before_timeouts=$(timed_out)
python3 - "${URL#http://}" <<'PY'
import socket, sys, time
host, port = sys.argv[1].split(":")
s = socket.create_connection((host, int(port)))
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
s.settimeout(30)
start = time.monotonic()
assert s.recv(1) == b"", "an answer to half a head"
assert time.monotonic() - start < 20, time.monotonic() - start
PY
[ "$(timed_out)" = $((before_timeouts + 1)) ] || fail "a head left unfinished was not counted: $before_timeouts, then $(timed_out)"

# The grading tests' hostile candidates: the same bytes as grade --no-record with the same limits.
echo "untouched" > sentinel.txt
DB_PATH=$(readlink -f "$FAILMAP_DB") SENTINEL=$(readlink -f sentinel.txt) python3 - <<'PY'
import json, os
db, sentinel = os.environ["DB_PATH"], os.environ["SENTINEL"]
c = {
 "loop": "def solve(batch_sizes, target):\n    while True:\n        pass\n",
 "alloc": "def solve(batch_sizes, target):\n    x = bytearray(10 * 1024 ** 3)\n    return len(x)\n",
 "forkbomb": "import os\ndef solve(batch_sizes, target):\n    while True:\n        os.fork()\n",
 "setsid": "import os, time\ndef solve(batch_sizes, target):\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(1000)\n    return sum(batch_sizes)\n",
 "delete": f"import os\ndef solve(batch_sizes, target):\n    os.remove({sentinel!r})\n",
 "read_archive": f"def solve(batch_sizes, target):\n    return len(open({db!r}, 'rb').read())\n",
 "socket": "import socket\ndef solve(batch_sizes, target):\n    socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(('127.0.0.1', 9))\n",
 "big_output": "def solve(batch_sizes, target):\n    return 'x' * (40 << 20)\n",
 "fake_output": "import sys\nprint('{\"observations\": [], \"passed\": true}')\ndef solve(batch_sizes, target):\n    return 0\n",
 "os_exit": "import os\ndef solve(batch_sizes, target):\n    os._exit(0)\n",
 "always_equal": "class Always:\n    def __eq__(self, other):\n        return True\ndef solve(batch_sizes, target):\n    return Always()\n",
 "kill_parent": "import os, signal\ndef solve(batch_sizes, target):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return sum(batch_sizes)\n",
 "correct": "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n",
}
with open("hostile.jsonl", "w") as f:
    for name, src in c.items():
        f.write(json.dumps({"case": "FA-98921", "model": name, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade hostile.jsonl --out hostile --no-record --timeout 2 --memory 512
[ "$(status hostile.jsonl application/jsonl)" = 200 ] || fail "hostile batch: $(head -c 300 reply.json)"
cmp reply.json hostile/results.jsonl || fail "hostile candidates: served results differ from grade's"
[ "$(cat sentinel.txt)" = untouched ] || fail "a candidate changed a file of the host"
python3 - hostile/results.jsonl <<'PY'
import json, sys
r = {x["model"]: x for x in map(json.loads, open(sys.argv[1]))}
assert r["loop"]["error"]["kind"] == "timeout" and r["alloc"]["error"]["kind"] == "memory", (r["loop"]["error"], r["alloc"]["error"])
assert r["correct"]["verdict"] == "resolved" and r["always_equal"]["verdict"] != "resolved" and r["fake_output"]["verdict"] != "resolved"
PY

# A small request whose candidates each return half a million ints: every results line holds about 3.5 MB of
# observation, 110 MB in all. The answer is written as its lines finish and a batch holds at most 64 MiB of
# answer, so the server's memory does not grow with the whole answer (the check below; it held every line,
# then a copy of them all, and reached about 3 times the answer).
python3 -c '
import json
src = "def solve(batch_sizes, target):\n    return [0] * 500000\n"
for i in range(32): print(json.dumps({"case": "FA-98921", "model": "big", "sample": i, "source": src}))
' > big.jsonl
curl -sS -H "Content-Type: application/jsonl" --data-binary @big.jsonl "$URL/v1/grade" |
  python3 -c '
import json, sys
n = 0
for line in sys.stdin.buffer:
    r = json.loads(line)
    assert r["sample"] == n and r["verdict"] == "unresolved" and len(line) > 3_000_000, (n, r["verdict"], len(line))
    n += 1
assert n == 32, n
' || fail "the batch of large results"

# Peak memory of the server after all of that (VmHWM, the resident high-water mark).
hwm=$(awk '/VmHWM/ {print $2}' /proc/$MAIN_PID/status)
echo "server peak resident memory: $((hwm / 1024)) MiB"
# (About 330 MiB here, whatever the number of such candidates in the batch; 1,010 MiB when the answer was
# built whole. AddressSanitizer keeps freed memory in quarantine: only a runaway is caught there.)
limit=600; [ "${FAILMAP_SANITIZE:-0}" = 1 ] && limit=2000
[ "$hwm" -lt $((limit * 1024)) ] || fail "the server's peak resident memory is $((hwm / 1024)) MiB"
kill -0 "$MAIN_PID" || fail "the server died"
# A well-formed request afterwards is graded as grade grades it.
[ "$(status "$PRED" application/jsonl)" = 200 ] && cmp -s reply.json demo/results.jsonl || fail "the demo batch afterwards"
curl -sS "$URL/metrics" > metrics.txt
grep -q '^failmap_connections_timed_out_total [1-9]' metrics.txt || fail "the slow head was not counted: $(grep timed_out metrics.txt)"
grep -q '^failmap_http_requests_total{route="/v1/grade",status="413"} 3$' metrics.txt || fail "413s: $(grep 413 metrics.txt)"
stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve exited $SERVE_STATUS: $(cat serve.log)"

# A token: required on every route but /healthz, compared whole; a non-loopback address needs one.
expect_status 2 "$FAILMAP" serve --listen 0.0.0.0:0
expect_error_mentions "not a loopback address; serving beyond this machine needs --token-file"
# A name is judged by what it resolves to: with /etc/hosts mapping localhost to every address, `localhost`
# is not loopback (bubblewrap lays such a hosts file over the real one for this one command).
if command -v bwrap >/dev/null && bwrap --dev-bind / / true 2>/dev/null; then
  printf '0.0.0.0 localhost\n' > all.hosts
  expect_status 2 timeout 20 bwrap --dev-bind / / --ro-bind all.hosts /etc/hosts "$FAILMAP" serve --listen localhost:0
  expect_error_mentions "--listen localhost: not a loopback address"
fi
echo short > short.token
expect_status 2 "$FAILMAP" serve --token-file short.token
expect_error_mentions "at least 16 are needed"
echo "0123456789abcdef0123456789abcdef" > good.token
SERVE_LOG=token.log start_server --token-file good.token
[ "$(curl -sS -o reply.json -w '%{http_code}' "$URL/v1/mechanisms")" = 401 ] || fail "no token"
grep -q 'requires a bearer token' reply.json || fail "401 message: $(cat reply.json)"
[ "$(curl -sS -o reply.json -w '%{http_code}' -H 'Authorization: Bearer 0123456789abcdef0123456789abcdeX' "$URL/v1/mechanisms")" = 401 ] ||
  fail "a wrong token"
[ "$(curl -sS -o reply.json -w '%{http_code}' -H 'Authorization: Bearer 0123456789abcdef0123456789abcdef' "$URL/v1/mechanisms")" = 200 ] ||
  fail "the right token: $(cat reply.json)"
[ "$(curl -sS -o reply.json -w '%{http_code}' "$URL/healthz")" = 200 ] || fail "/healthz needs no token"
stop_server

# One slow worker, a queue of 4: a full queue answers 429 with Retry-After; a hung-up client's candidates still
# queued are dropped; a third connection beyond --max-connections 2 gets 503; a killed worker gives kind `sandbox`.
# (The engine's pool holds one candidate per worker beyond the running one: those are graded in any case.)
python3 - <<'PY'
import json
sleep = "import time\ntime.sleep(1.0)  # once per candidate, before its calls\ndef solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
ok = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
json.dump([{"case": "FA-98921", "model": "slow", "sample": i, "source": sleep} for i in range(4)], open("slow4.json", "w"))
json.dump([{"case": "FA-98921", "model": "slow", "sample": i, "source": sleep} for i in range(2)], open("slow2.json", "w"))
json.dump([{"case": "FA-98921", "model": "slow", "sample": 0, "source": sleep},
           {"case": "FA-98921", "model": "ok", "sample": 0, "source": ok}], open("slow_ok.json", "w"))
PY
SERVE_LOG=small.log start_server --jobs 1 --max-queue 4 --max-predictions 4 --max-connections 2 --header-timeout 3
curl -sS -o first.json -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @slow4.json "$URL/v1/grade" > first.code &
client=$!
# The batch is in once 3 wait (the pool holds one beside the one on the worker); it holds the queue for the
# second that its first candidate sleeps.
wait_metric '^failmap_queue_depth [34]$'
code=$(curl -sS -D headers.txt -o reply.json -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @slow2.json "$URL/v1/grade")
expect_refusal 429 "$code" "the grading queue is full"
grep -qi '^Retry-After: 1' headers.txt || fail "429 without Retry-After: $(cat headers.txt)"
wait "$client"  # (a bare wait would wait for the server too)
[ "$(cat first.code)" = 200 ] || fail "the first batch: $(cat first.code) $(head -c 200 first.json)"

# A client that hangs up while its batch waits (its first candidate on the worker, the second held by the
# pool, two in the queue): those two are dropped.
wait_metric '^failmap_queue_depth 0$'
python3 - "${URL#http://}" <<'PY'
import socket, sys, time, urllib.request
host, port = sys.argv[1].split(":")
body = open("slow4.json", "rb").read()
s = socket.create_connection((host, int(port)))
s.sendall(b"POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
def depth():
    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30).read().decode()
    return int(next(l for l in text.splitlines() if l.startswith("failmap_queue_depth ")).split()[1])
deadline = time.monotonic() + 60
while depth() != 3:
    assert time.monotonic() < deadline, "the batch never waited in the queue"
    time.sleep(0.05)
s.close()
PY
wait_metric '^failmap_candidates_graded_total\{verdict="resolved"\} 6$'
curl -sS "$URL/metrics" > metrics.txt
grep -q '^failmap_candidates_dropped_total 2$' metrics.txt || fail "dropped: $(grep dropped metrics.txt)"
grep -q '^failmap_http_requests_total{route="/v1/grade",status="499"} 1$' metrics.txt ||
  fail "the cancelled request's 499: $(grep status= metrics.txt)"
grep -q '^failmap_candidates_graded_total{verdict="resolved"} 6$' metrics.txt || fail "graded: $(grep graded_total metrics.txt)"

# Two idle connections fill --max-connections 2: a third request is answered 503 with Retry-After.
python3 - "${URL#http://}" <<'PY'
import socket, sys, time, urllib.error, urllib.request
host, port = sys.argv[1].split(":")
idle = [socket.create_connection((host, int(port))) for _ in range(2)]
# The server counts a connection once it accepts it: until both idle ones are in, a third may be served.
deadline = time.monotonic() + 60
while True:
    try:
        urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=30)
        assert time.monotonic() < deadline, "a third connection was served for 60 s"
        time.sleep(0.05)
    except urllib.error.HTTPError as e:
        assert e.code == 503 and e.headers["Retry-After"] == "1", (e.code, dict(e.headers))
        assert "too many open connections" in e.read().decode()
        break
for s in idle:
    s.close()
# Once it has seen them closed, it serves again.
deadline = time.monotonic() + 60
while True:
    try:
        assert urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=30).status == 200
        break
    except urllib.error.HTTPError as e:
        assert e.code == 503 and time.monotonic() < deadline, (e.code, "60 s after the idle connections closed")
        time.sleep(0.05)
PY

# SIGKILL of the sandbox worker while it runs a candidate: that candidate is an `error` of kind `sandbox`,
# the worker is restarted, the next candidate of the batch and the next request are graded normally.
curl -sS -o killed.json -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @slow_ok.json "$URL/v1/grade" > killed.code &
client=$!
# The slow candidate is on the worker (for a second) once the other waits in the pool.
wait_metric '^failmap_queue_depth 1$'
worker=$(pgrep -P "$SERVE_PID" -x bwrap | head -1)
[ -n "$worker" ] || fail "no bwrap child of the server"
kill -KILL "$worker"
wait "$client"
[ "$(cat killed.code)" = 200 ] || fail "the batch whose worker was killed: $(cat killed.code)"
python3 - <<'PY'
import json
r = json.load(open("killed.json"))
assert r[0]["verdict"] == "error" and r[0]["error"]["kind"] == "sandbox" and r[0]["reward"] == 0.0, r[0]["error"]
assert r[1]["verdict"] == "resolved", r[1]["error"]
PY
curl -sS "$URL/metrics" | grep -q '^failmap_sandbox_restarts_total 1$' || fail "the restart was not counted"

# SIGTERM while a batch runs: the batch is answered whole, the server exits 0 and accepts nothing more.
curl -sS -o drained.json -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @slow_ok.json "$URL/v1/grade" > drained.code &
client=$!
wait_metric '^failmap_queue_depth 1$'
stop_server
wait "$client"
[ "$SERVE_STATUS" = 0 ] || fail "serve exited $SERVE_STATUS after SIGTERM: $(cat small.log)"
[ "$(cat drained.code)" = 200 ] || fail "the batch in flight at SIGTERM: $(cat drained.code) $(head -c 200 drained.json)"
python3 -c 'import json; r=json.load(open("drained.json")); assert [x["verdict"] for x in r]==["resolved","resolved"], r'
curl -sS -m 5 "$URL/healthz" >/dev/null 2>&1 && fail "the server still answers after SIGTERM"
expect_no_sandbox_left
[ "$(archive_state)" = "$before" ] || fail "serving changed the archive"
