# Two replicas of failmap serve, each on its own copy of the archive, behind nginx (Debian nginx-light,
# started here on a loopback port with the upstream block docs/serve.md shows): batches sent through nginx
# are spread over both replicas and come back complete and identical to grade's results. Loopback only.
source "$SRC/tests/harness/serve.sh"
command -v nginx >/dev/null || { echo "SKIP: nginx is not installed (scripts/install-deps.sh installs nginx-light)"; exit 77; }
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
expect_status 0 "$FAILMAP" grade "$PRED" --out demo --no-record
cp "$FAILMAP_DB" replica1.db
cp "$FAILMAP_DB" replica2.db
chmod 0444 replica1.db replica2.db  # each replica's archive, read-only
FAILMAP_DB=$PWD/replica1.db SERVE_LOG=r1.log start_server --jobs 1
R1=$URL; P1=$SERVE_PID
FAILMAP_DB=$PWD/replica2.db SERVE_LOG=r2.log start_server --jobs 1
R2=$URL; P2=$SERVE_PID

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p nginx/tmp
cat > nginx/nginx.conf <<EOF
worker_processes 1;
daemon off;
pid $PWD/nginx/nginx.pid;
error_log $PWD/nginx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $PWD/nginx/tmp/body;
  proxy_temp_path $PWD/nginx/tmp/proxy;
  fastcgi_temp_path $PWD/nginx/tmp/fastcgi;
  uwsgi_temp_path $PWD/nginx/tmp/uwsgi;
  scgi_temp_path $PWD/nginx/tmp/scgi;
  upstream failmap {
    server ${R1#http://};
    server ${R2#http://};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$port;
    client_max_body_size 8m;
    location / {
      proxy_pass http://failmap;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 600s;
      proxy_next_upstream error timeout http_503;
    }
  }
}
EOF
nginx -p "$PWD/nginx" -c "$PWD/nginx/nginx.conf" -g 'user root;' &
NGINX=$!
SERVE_PIDS="$SERVE_PIDS $NGINX"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
LB="http://127.0.0.1:$port"
curl -sS --fail-with-body "$LB/healthz" >/dev/null || fail "nginx does not answer: $(cat nginx/error.log)"

# Eight batches at once through nginx: each comes back whole and as grade wrote it.
clients=()
for i in $(seq 1 8); do
  curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @"$PRED" "$LB/v1/grade" -o "lb$i.jsonl" &
  clients+=($!)
done
wait "${clients[@]}"
for i in $(seq 1 8); do cmp -s "lb$i.jsonl" demo/results.jsonl || fail "batch $i through nginx: $(head -c 300 "lb$i.jsonl")"; done
# The Python client's rewards through nginx, one request per prediction: the same rewards as grade's lines.
PYTHONPATH="$SRC/clients/python" python3 - "$LB" "$PRED" demo/results.jsonl <<'PY'
import json, sys
from failmap_client import Client
preds = [json.loads(l) for l in open(sys.argv[2])]
expected = [json.loads(l)["reward"] for l in open(sys.argv[3])]
c = Client(sys.argv[1])
got = [c.grade([p])[0]["reward"] for p in preds]
assert got == expected, (got, expected)
PY
# Both replicas graded a share.
for r in "$R1" "$R2"; do
  n=$(curl -sS "$r/metrics" | awk '/^failmap_candidates_graded_total/ {s += $2} END {print s}')
  echo "replica $r graded $n candidate(s)"
  [ "$n" -ge 6 ] || fail "replica $r graded $n candidates: the batches were not spread"
done
total=$( (curl -sS "$R1/metrics"; curl -sS "$R2/metrics") | awk '/^failmap_candidates_graded_total/ {s += $2} END {print s}')
[ "$total" = $((8 * 6 + 6)) ] || fail "$total candidates graded in all, expected $((8 * 6 + 6))"

kill -TERM "$NGINX"; wait "$NGINX" || true  # nginx's status after our SIGTERM is not under test
SERVE_PID=$P1 stop_server
[ "$SERVE_STATUS" = 0 ] || fail "replica 1 exited $SERVE_STATUS"
SERVE_PID=$P2 stop_server
[ "$SERVE_STATUS" = 0 ] || fail "replica 2 exited $SERVE_STATUS"
expect_no_sandbox_left
