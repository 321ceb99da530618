# Helpers for the scenarios of `failmap serve` (tests/e2e/serve_*.sh): a server on a free loopback port.
# start_server [OPTION...]: starts `failmap serve --listen 127.0.0.1:0 OPTION...` in the background with its
# output in serve.log; sets SERVE_PID and URL (http://127.0.0.1:PORT) once it listens (at most 60 s).
# stop_server: SIGTERM, then waits for it to exit; its status in SERVE_STATUS (the processes below it, noted
# before, are checked by expect_no_sandbox_left).
start_server() {
  local log=${SERVE_LOG:-serve.log}
  # Made here, not by the background job's redirect, which may come after the
  # first look below: sed on a missing file would end the scenario (set -e).
  : > "$log"
  "$FAILMAP" serve --listen 127.0.0.1:0 "$@" > "$log" 2>&1 &
  SERVE_PID=$!
  local port=""
  for _ in $(seq 1 600); do
    port=$(sed -n 's|^failmap: serving .* on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
    [ -n "$port" ] && break
    kill -0 "$SERVE_PID" 2>/dev/null || fail "failmap serve exited before listening: $(cat "$log")"
    sleep 0.1
  done
  [ -n "$port" ] || fail "failmap serve did not listen within 60 s: $(cat "$log")"
  URL="http://127.0.0.1:$port"
  # A scenario that fails midway leaves no server behind (run_one.sh's own trap removes the folder).
  SERVE_PIDS="${SERVE_PIDS:-} $SERVE_PID"
  trap 'kill $SERVE_PIDS 2>/dev/null || true; rm -rf "$work"' EXIT  # servers already stopped are fine
}
stop_server() {
  SERVE_TREES="${SERVE_TREES:-} $(descendants "$SERVE_PID")"
  kill -TERM "$SERVE_PID"
  set +e
  wait "$SERVE_PID"
  SERVE_STATUS=$?
  set -e
}
# wait_metric REGEX [SECONDS]: polls $URL/metrics until a line matches the extended REGEX (at most SECONDS,
# default 60): scenarios wait for the state they mean to catch, never for a fixed time.
wait_metric() {
  local tries=$(( ${2:-60} * 20 ))
  for _ in $(seq 1 "$tries"); do
    curl -sS "$URL/metrics" 2>/dev/null | grep -Eq -- "$1" && return 0
    sleep 0.05
  done
  fail "no metric line matched '$1' within ${2:-60} s: $(curl -sS "$URL/metrics" | grep -v '^#' | tr '\n' ' ')"
}
# descendants PID: every process below PID (its sandbox workers, their namespaces' processes).
descendants() {
  local c
  # pgrep exits 1 for a process without children.
  for c in $(pgrep -P "$1" || true); do echo "$c"; descendants "$c"; done
}
# The sandbox processes on this machine (their bubblewrap hostname).
sandboxes() { (pgrep -f 'hostname failmap-sandbox' || true) | sort; }  # pgrep exits 1 when there is none
# expect_no_sandbox_left: no process that was below a server when stop_server stopped it is still running
# (waits 5 s for the kernel to reap a killed namespace's last processes on a busy machine). Other
# scenarios' sandboxes on a shared machine do not count.
expect_no_sandbox_left() {
  local left=""
  for _ in $(seq 1 50); do
    left=""
    for p in ${SERVE_TREES:-}; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "process(es) of a stopped server still running:$left ($(left=${left# }; ps -o pid,cmd -p "${left// /,}" | tail -n +2 | cut -c1-120))"
}
