# SIGKILL at 40 points (delays from a fixed seed) during a large import (into
# an archive with cases, and into one without, which imports with a rollback
# journal instead of WAL: src/store/importer.cc ImportSession::begin), run
# --all and digest regenerate: every time the archive passes PRAGMA integrity_check and
# holds exactly the state before or the state after the command, never a half.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
n=${CRASH_CASES:-1000}
[ "${FAILMAP_SANITIZE:-0}" = 1 ] && n=300
python3 "$SRC/tests/harness/gen_seed_cases.py" files gen 1 "$n"
"$FAILMAP" --db empty.db import "$SRC/cases/FA-98921.json" >/dev/null

# state DB: the archive's content without volatile columns (recorded_at, and the random repair salts
# each import makes, with the seal digests made of them: schema/004_repair_salts.sql, 009_seal_digests.sql).
state() {
  sqlite3 "$1" "PRAGMA integrity_check" | grep -qx ok || fail "integrity_check failed on $1"
  sqlite3 "$1" ".dump" | sed -E "s/'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z'/'T'/g; /^INSERT INTO repair_salts/s/X'[0-9a-fA-F]{64}'/X'salt'/g" | sha256sum
}

# Reference states: before and after each command, run to completion.
cp empty.db imported.db; "$FAILMAP" --db imported.db import gen >/dev/null
# An archive with its schema and no case.
cp empty.db fresh.db; sqlite3 fresh.db "PRAGMA foreign_keys = ON; DELETE FROM cases; DELETE FROM case_texts; DELETE FROM mechanisms"
cp fresh.db fresh_imported.db; "$FAILMAP" --db fresh_imported.db import gen >/dev/null
[ "$(sqlite3 fresh_imported.db "PRAGMA journal_mode")" = wal ] || fail "an import into an archive without cases did not return it to WAL"
cp imported.db ran.db; checks_may_fail "$FAILMAP" --db ran.db -q run --all >/dev/null
# Stale run digests (as after a damaged copy) for regenerate to rewrite.
cp ran.db stale.db; sqlite3 stale.db "UPDATE runs SET digest = zeroblob(32)"
cp stale.db regenerated.db; checks_may_fail "$FAILMAP" --db regenerated.db -q digest regenerate >/dev/null
before_import=$(state empty.db); after_import=$(state imported.db); after_run=$(state ran.db)
before_fresh=$(state fresh.db); after_fresh=$(state fresh_imported.db)
stale=$(state stale.db); regenerated=$(state regenerated.db)
[ "$stale" != "$regenerated" ] || fail "digest regenerate changed nothing; the test would prove nothing"

# Duration of each full command, for spreading the kill points over it. Any exit status is fine here: only
# the time is wanted, and the same commands' statuses are checked above.
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
cp empty.db probe.db; import_ms=$(ms "$FAILMAP" --db probe.db import gen)
run_ms=$(ms "$FAILMAP" --db probe.db -q run --all)
cp stale.db probe.db; regen_ms=$(ms "$FAILMAP" --db probe.db digest regenerate)

RANDOM=20240601  # fixed seed: the same kill points every time
for i in $(seq 1 10); do
  for cmd in import fresh run regenerate; do
    rm -f k.db-journal k.db-wal k.db-shm
    case $cmd in
      import) cp empty.db k.db; total=$import_ms; "$FAILMAP" --db k.db import gen >/dev/null 2>&1 & ;;
      fresh) cp fresh.db k.db; total=$import_ms; "$FAILMAP" --db k.db import gen >/dev/null 2>&1 & ;;
      run) cp imported.db k.db; total=$run_ms; "$FAILMAP" --db k.db -q run --all >/dev/null 2>&1 & ;;
      regenerate) cp stale.db k.db; total=$regen_ms; "$FAILMAP" --db k.db digest regenerate >/dev/null 2>&1 & ;;
    esac
    pid=$!
    delay_ms=$(( RANDOM % (total + 1) ))
    sleep "$(printf '0.%03d' $((delay_ms % 1000)))"; [ $delay_ms -ge 1000 ] && sleep $((delay_ms / 1000))
    # The command may have ended before the kill, and its status (137 or its own) is not under test: what
    # the kill left is, below.
    kill -KILL $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    # A read-only command works on what the kill left (a hot journal of the
    # rollback-journal import is rolled back by its open), before the sqlite3
    # shell of state() could do it.
    "$FAILMAP" --db k.db list >/dev/null 2>list.err || fail "list after a kill during $cmd: $(cat list.err)"
    s=$(state k.db)
    case $cmd in
      import) [ "$s" = "$before_import" ] || [ "$s" = "$after_import" ] || fail "import killed after ${delay_ms} ms left a half state" ;;
      fresh) [ "$s" = "$before_fresh" ] || [ "$s" = "$after_fresh" ] || fail "import into an archive without cases killed after ${delay_ms} ms left a half state" ;;
      run) [ "$s" = "$after_import" ] || [ "$s" = "$after_run" ] || fail "run --all killed after ${delay_ms} ms left a half state" ;;
      regenerate) [ "$s" = "$stale" ] || [ "$s" = "$regenerated" ] || fail "digest regenerate killed after ${delay_ms} ms left a half state" ;;
    esac
  done
done
echo "40 kills: import ${import_ms} ms, run --all ${run_ms} ms, digest regenerate ${regen_ms} ms"
