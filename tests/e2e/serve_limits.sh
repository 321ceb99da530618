# failmap serve's limits on connections and request heads (schema/SERVE.md "Limits and timeouts"): with
# --max-connections 4, four idle connections are served and the next three are answered 503 at once, before
# they send anything, and counted; a head of 120 KB sent at once and a header line of 9,000 bytes are answered
# 431; a Content-Length that is negative, not a number, or two different lengths is answered 400 at once and
# the connection closed (what follows is not read as a request); a content coding other than gzip, deflate,
# br or identity is answered 415; the Bearer scheme is matched in any case.
# Each refusal is a JSON error naming the limit or the header, and a well-formed request afterwards is graded
# as `failmap grade` grades it. Every connection is to 127.0.0.1.
source "$SRC/tests/harness/serve.sh"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
expect_status 0 "$FAILMAP" grade "$PRED" --out demo --no-record
echo "0123456789abcdef0123456789abcdef" > good.token
start_server --jobs 1 --max-connections 4 --header-timeout 30 --token-file good.token

python3 - "${URL#http://}" <<'PY'
import json, socket, sys, time
host, port = sys.argv[1].split(":")
TOKEN = b"0123456789abcdef0123456789abcdef"
auth = b"Authorization: Bearer %s\r\n" % TOKEN

def read_answers(s):
    """Everything the server sends until it closes (at most 10 s): a list of (status, headers, body)."""
    s.settimeout(10)
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (socket.timeout, ConnectionResetError) as e:
            raise SystemExit(f"no end of the answer: {type(e).__name__} after {data[:300]!r}")
        if not chunk:
            break
        data += chunk
    answers = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
        n = int(headers["content-length"])
        answers.append((int(lines[0].split(" ")[1]), headers, rest[:n].decode()))
        data = rest[n:]
    return answers

def one_answer(raw):
    """Sends `raw` on a new connection: the one answer (the server then closes the connection)."""
    s = socket.create_connection((host, int(port)))
    s.sendall(raw)
    answers = read_answers(s)
    s.close()
    assert len(answers) == 1, f"{len(answers)} answers to one request: {answers}"
    return answers[0]

def expect_error(answer, status, text):
    got, headers, body = answer
    assert got == status, f"expected {status}, got {got}: {body[:300]}"
    e = json.loads(body)["error"]
    assert e["status"] == status and text in e["error"], (text, e)
    return headers

def request(s, path):
    """GET path on an open keep-alive connection: (status, body)."""
    s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n" % (path.encode(), TOKEN))
    s.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    while len(body) < n:
        body += s.recv(65536)
    return int(head.split(b" ")[1]), body.decode()

# --max-connections 4: four idle connections, then three more are answered 503 before they send a byte.
first = [socket.create_connection((host, int(port))) for _ in range(4)]
for i in range(3):
    extra = socket.create_connection((host, int(port)))
    answers = read_answers(extra)
    assert answers, "a connection beyond the limit was closed without an answer"
    headers = expect_error(answers[0], 503, "too many open connections (at most 4, --max-connections)")
    assert headers["retry-after"] == "1" and headers["connection"] == "close", headers
    extra.close()
# The first four stay usable, and the three are counted.
for s in first:
    assert request(s, "/healthz")[0] == 200
status, metrics = request(first[0], "/metrics")
assert status == 200 and "\nfailmap_connections_refused_total 3\n" in metrics, [
    l for l in metrics.splitlines() if "refused" in l]
for s in first:
    s.close()
# The server counts a connection until it sees it closed: wait until a new one is served again.
for _ in range(200):
    if one_answer(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")[0] != 503:
        break
    time.sleep(0.05)
else:
    raise SystemExit("the four closed connections still counted after 10 s")
print("connections beyond 4 answered 503 at once; 3 counted")

# The request head: 16,384 bytes at most, a header line 8,192 at most (431); just under both is served.
pad = b"".join(b"X-Pad-%04d: %s\r\n" % (i, b"a" * 100) for i in range(1200))  # 120 KB
expect_error(one_answer(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + pad + b"\r\n"), 431, "larger than 16384 bytes")
expect_error(one_answer(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n"), 431,
             "longer than 8192 bytes")
head = b"GET /v1/mechanisms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth + b"X-Long: " + b"a" * 8100 + b"\r\n"
head += b"".join(b"X-Pad-%04d: %s\r\n" % (i, b"a" * 100) for i in range(70))
head += b"X-End: " + b"a" * (16384 - len(head) - 11) + b"\r\n\r\n"
assert len(head) == 16384, len(head)
status, _, body = one_answer(head)
assert status == 200 and json.loads(body)["mechanisms"], (status, body[:300])
print("a head of 120 KB and a header line of 9,000 bytes: 431; a head of 16,384 bytes: 200")

# Content-Length: not a length, or two of them that differ: 400 at once, naming the header; the bytes after the
# head are not read as a next request (exactly one answer, then the connection is closed).
post = b"POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + auth
tail = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
bad = "header 'Content-Length': expected a length in decimal digits, got "
for lengths, text in [([b"-5"], bad + "'-5'"), ([b"abc"], bad + "'abc'"), ([b"+5"], bad + "'+5'"),
                      ([b"5, 6"], "header 'Content-Length': two different lengths, in '5, 6'"),
                      ([b"5", b"6"], "header 'Content-Length': two different lengths, '5' and '6'")]:
    raw = post + b"".join(b"Content-Length: %s\r\n" % v for v in lengths) + b"\r\n" + tail
    headers = expect_error(one_answer(raw), 400, text)
    assert headers["connection"] == "close" and "keep-alive" not in headers, headers
# One length given twice is one length: the body is read (an empty batch: 422).
raw = post + b"Content-Length: 2\r\nContent-Length: 02, 2\r\nConnection: close\r\n\r\n[]"
expect_error(one_answer(raw), 422, "the batch holds no prediction")
print("bad Content-Length: 400 at once, the connection closed")

# A Content-Length above --max-body (8 MiB) is refused at once with 413, its body neither waited for nor read
# (none is sent here: a server that waited would answer only at the body timeout). Transfer-Encoding beside
# Content-Length is refused with 400 (RFC 9112 §6.1), the chunked body after it not read as a next request.
start = time.monotonic()
headers = expect_error(one_answer(post + b"Content-Length: 8388609\r\n\r\n"), 413,
                       "the request body is larger than 8388608 bytes (--max-body; header 'Content-Length': 8388609)")
assert headers["connection"] == "close" and time.monotonic() - start < 20, (headers, time.monotonic() - start)
raw = post + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + tail
headers = expect_error(one_answer(raw), 400, "headers 'Transfer-Encoding' and 'Content-Length' together")
assert headers["connection"] == "close", headers
print("Content-Length above --max-body: 413 at once; Transfer-Encoding with Content-Length: 400")

# A transfer coding other than chunked: 501 at once (RFC 9112 §6.1). A POST without Content-Length or
# Transfer-Encoding has no body (§6.3): 411 at once, not a wait for bytes that will not come. A malformed
# chunked body: 400, and what follows it on the connection is not read as a request (one answer only).
for coding in (b"xyz", b"gzip, chunked"):
    raw = post + b"Transfer-Encoding: " + coding + b"\r\n\r\n0\r\n\r\n" + tail
    headers = expect_error(one_answer(raw), 501, "this server understands chunked alone")
    assert headers["connection"] == "close", headers
expect_error(one_answer(post + b"\r\n" + tail), 411, "POST /v1/grade needs a body")
raw = post + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + tail
headers = expect_error(one_answer(raw), 400, "the request body could not be read")
assert headers["connection"] == "close", headers
print("Transfer-Encoding xyz: 501; no body framing: 411; a malformed chunked body: 400, nothing after it read")

# A content coding the server does not decode (an unknown one, another spelling, a list): 415 at once with
# Accept-Encoding, the body not read (RFC 9110 §15.5.16, §12.5.3). A gzip body is decoded: "[]" is an empty
# batch, 422.
import gzip
packed = gzip.compress(b"[]")
for coding in (b"zstd", b"GZIP", b"gzip, gzip", b"identity, gzip"):
    raw = post + b"Content-Encoding: " + coding + b"\r\nContent-Length: %d\r\n\r\n" % len(packed) + packed + tail
    headers = expect_error(one_answer(raw), 415, "this server decodes one coding, named in lower case")
    assert headers["accept-encoding"] == "gzip, deflate, br" and headers["connection"] == "close", headers
raw = post + b"Content-Encoding: gzip\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(packed) + packed
expect_error(one_answer(raw), 422, "the batch holds no prediction")
print("Content-Encoding zstd, GZIP or a list: 415 with Accept-Encoding; gzip: decoded")

# The Bearer scheme in any case; the token itself is compared exactly.
for scheme, want in [(b"bearer", 200), (b"BEARER", 200), (b"Bearer  ", 200), (b"Basic", 401)]:
    raw = b"GET /v1/mechanisms HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: %s %s\r\n\r\n" % (scheme, TOKEN)
    assert one_answer(raw)[0] == want, (scheme, want)
raw = b"GET /v1/mechanisms HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: bearer %s\r\n\r\n" % TOKEN.upper()
expect_error(one_answer(raw), 401, "not the one this server was started with")
# Another scheme is named as such, not as a wrong token.
raw = b"GET /v1/mechanisms HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic %s\r\n\r\n" % TOKEN
expect_error(one_answer(raw), 401, "the Authorization header holds no bearer token (expected: Bearer TOKEN)")
print("the Bearer scheme in any case")
PY

kill -0 "$SERVE_PID" || fail "the server died"
code=$(curl -sS -o reply.jsonl -w '%{http_code}' -H 'Authorization: bearer 0123456789abcdef0123456789abcdef' \
  -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$URL/v1/grade")
[ "$code" = 200 ] && cmp -s reply.jsonl demo/results.jsonl || fail "the demo batch afterwards: $code $(head -c 300 reply.jsonl)"
stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve exited $SERVE_STATUS: $(cat serve.log)"
