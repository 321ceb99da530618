# Ctrl-C (SIGINT) or SIGTERM during a long command: exit 128 + the signal's number, one line on stderr
# saying so, the archive exactly as before (the transaction rolled back), and nothing at an export's --out.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
n=30000
[ "${FAILMAP_SANITIZE:-0}" = 1 ] && n=5000
expect_status 0 "$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..$n --id-prefix V
expect_status 0 "$FAILMAP" -q run --all --jobs 2
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out bundle
cp "$FAILMAP_DB" empty.db && sqlite3 empty.db "PRAGMA foreign_keys = ON; DELETE FROM cases; DELETE FROM recordings"
before=$(archive_state); before_empty=$(archive_state empty.db)
unchanged="the archive is unchanged (its transaction was rolled back)"

# catching PID: the process PID is failmap (not yet the shell that starts it) and catches SIGINT and SIGTERM
# (bits 2 and 15 of SigCgt in /proc/PID/status). A signal that comes before failmap installs its handlers
# ends it the default way, silently; on a loaded machine that can take longer than any fixed wait.
catching() {
  local mask
  [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$failmap_exe" ] || return 1
  mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
  [ -n "$mask" ] && (( (16#$mask >> 1 & 1) && (16#$mask >> 14 & 1) ))
}
failmap_exe=$(readlink -f "$FAILMAP")
# interrupt SIGNAL STARTED WANT_LINE CMD...: runs CMD in the background (with job control, set -m, so
# that SIGINT is not ignored, as in a terminal: a script's background job ignores it), waits until failmap
# catches the signals and then until the shell test STARTED holds, sends SIGNAL once, and checks the exit
# status and that stderr is exactly WANT_LINE.
interrupt() {
  local sig=$1 started=$2 want=$3; shift 3
  set -m; "$@" >stdout.txt 2>stderr.txt & set +m
  local pid=$! i=0
  until catching $pid && eval "$started"; do
    if ! kill -0 $pid 2>/dev/null; then
      # With INTERRUPT_MAY_FINISH=1, a command that ended on its own with status 0 makes this return 1.
      set +e; wait $pid; local early=$?; set -e
      [ "${INTERRUPT_MAY_FINISH:-0}" = 1 ] && [ $early = 0 ] && return 1
      fail "'$*' ended before it could be interrupted (status $early): $(cat stderr.txt)"
    fi
    i=$((i + 1)); [ $i -lt 2000 ] || fail "'$*' did not start within 20 s"
    sleep 0.01
  done
  if ! kill -"$sig" $pid 2>/dev/null; then
    set +e; wait $pid; local early=$?; set -e
    [ "${INTERRUPT_MAY_FINISH:-0}" = 1 ] && [ $early = 0 ] && return 1
    fail "'$*' ended before it could be interrupted (status $early)"
  fi
  set +e; wait $pid; local got=$?; set -e
  [ "${INTERRUPT_MAY_FINISH:-0}" = 1 ] && [ $got = 0 ] && return 1  # it ended between the kill and its handler
  local code=130; [ "$sig" = TERM ] && code=143
  [ $got = $code ] || fail "'$*' after SIG$sig exited $got, expected $code; stderr: $(cat stderr.txt)"
  [ "$(cat stderr.txt)" = "failmap: interrupted (SIG$sig): $want" ] || fail "'$*' after SIG$sig said: $(cat stderr.txt)"
}
# How long a command runs, once it catches the signals, before those sent after a fixed wait: long enough to
# be at work, not done (the sanitizer build works several times slower).
settle=0.5 quick=0.1; [ "${FAILMAP_SANITIZE:-0}" = 1 ] && settle=1.5 quick=1
# Import and instantiate keep their writes in the page cache until the commit, so nothing outside shows
# they have started: a signal after 0.5 s comes while they parse, check or write (each takes seconds).

interrupt INT '[ -s stdout.txt ]' "$unchanged" "$FAILMAP" run --all --jobs 2
[ "$(archive_state)" = "$before" ] || fail "an interrupted run --all changed the archive"
interrupt INT "sleep $settle" "$unchanged" "$FAILMAP" digest regenerate
[ "$(archive_state)" = "$before" ] || fail "an interrupted digest regenerate changed the archive"
# verify reads only; it stops with the same one line (it exited 130 silently).
interrupt INT "sleep $quick" "verify writes nothing: the archive is as it was" "$FAILMAP" verify
[ "$(archive_state)" = "$before" ] || fail "an interrupted verify changed the archive"
interrupt INT "sleep $settle" "$unchanged" "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..1000000 --id-prefix W
[ "$(archive_state)" = "$before" ] || fail "an interrupted instantiate changed the archive"
# Imports are signalled at a share of a whole import's time, measured here: a fixed wait could outlast the
# whole import on a fast machine. An import that still ends first (the machine got faster) is tried again
# at three quarters of the wait, so every signal lands while the import works.
cp empty.db whole.db
start=$(date +%s%N); expect_status 0 "$FAILMAP" --db whole.db import bundle; whole_ms=$((($(date +%s%N) - start) / 1000000))
# interrupt_import SIGNAL PCT ARGS...: `import bundle ARGS` into empty.db, signalled at PCT% of whole_ms.
interrupt_import() {
  local sig=$1 pct=$2 ms=$((whole_ms * $2 / 100)) try floor=100; shift 2
  [ "${FAILMAP_SANITIZE:-0}" = 1 ] && floor=1000  # failmap must have installed its handlers
  for try in 1 2 3 4 5 6; do
    [ $ms -ge $floor ] || ms=$floor
    cp empty.db before.db
    INTERRUPT_MAY_FINISH=1 interrupt "$sig" "sleep $((ms / 1000)).$(printf %03d $((ms % 1000)))" "$unchanged" \
      "$FAILMAP" --db empty.db import bundle "$@" && return 0
    cp before.db empty.db && rm -f empty.db-wal empty.db-shm
    ms=$((ms * 3 / 4))
  done
  fail "import bundle $* ended before SIG$sig six times, the last at $ms ms of a $whole_ms ms import"
}
# At 10%, while it parses and checks; at 40%, 60% and 80% while it writes the runs: a statement stopped
# between two rows there must not keep the archive out of WAL (an import into an archive without cases
# writes with a rollback journal and returns to WAL however it ends).
for pct in 10 40 60 80; do
  interrupt_import INT $pct
  [ "$(archive_state empty.db)" = "$before_empty" ] || fail "an import interrupted at $pct% changed the archive"
  [ "$(sqlite3 empty.db 'PRAGMA journal_mode')" = wal ] ||
    fail "an import interrupted at $pct% of its $whole_ms ms left the archive out of WAL mode"
done
interrupt_import TERM 30 --jobs 1
[ "$(archive_state empty.db)" = "$before_empty" ] || fail "an import stopped by SIGTERM changed the archive"
interrupt INT '[ -n "$(ls -A .pages.failmap-* 2>/dev/null)" ]' "nothing was written to pages" \
  "$FAILMAP" export --format pages --out pages
[ ! -e pages ] || fail "an interrupted export left pages/ behind"
[ -z "$(ls -A | grep failmap-)" ] || fail "an interrupted export left its staging folder: $(ls -A)"

# A second signal ends the process at once (the default action), archive still intact.
set -m; "$FAILMAP" --db empty.db import bundle 2>stderr.txt & set +m
pid=$!
i=0; until catching $pid; do kill -0 $pid && [ $((i += 1)) -lt 2000 ] || fail "import did not start"; sleep 0.01; done
ms=$((whole_ms / 3)); sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"; kill -0 $pid || fail "import ended too soon"
kill -INT $pid; kill -INT $pid 2>/dev/null || true  # the first may already have ended it: no process is fine
set +e; wait $pid; got=$?; set -e
[ $got = 130 ] || fail "import after two SIGINTs exited $got"
[ "$(sqlite3 empty.db 'PRAGMA integrity_check')" = ok ] && [ "$(archive_state empty.db)" = "$before_empty" ] ||
  fail "import ended by a second SIGINT left the archive changed"

# split --input: stopped while it reads the listing (SIGINT) and while it writes the split files (SIGTERM),
# with one line and nothing left beside --out (it died silently, leaving .parts.failmap-XXXXXX/ behind).
lines=1000000
[ "${FAILMAP_SANITIZE:-0}" = 1 ] && lines=300000
python3 -c "
import sys
w = sys.stdout.write
for i in range($lines): w('{\"id\":\"i%d\",\"group\":\"g%d\"}\n' % (i, i // 3))
" > listing.jsonl
mkdir parent
interrupt INT "sleep $quick" "nothing was written to parent/parts" \
  "$FAILMAP" split --input listing.jsonl --group-field group --ratios train=0.8,test=0.2 --out parent/parts
[ -z "$(ls -A parent)" ] || fail "an interrupted split --input left something beside --out: $(ls -A parent)"
interrupt TERM '[ -n "$(ls -A parent/.parts.failmap-* 2>/dev/null)" ]' "nothing was written to parent/parts" \
  "$FAILMAP" split --input listing.jsonl --group-field group --ratios train=0.8,test=0.2 --out parent/parts
[ -z "$(ls -A parent)" ] || fail "a split --input stopped by SIGTERM left something beside --out: $(ls -A parent)"
