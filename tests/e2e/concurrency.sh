# Two writers at once: the second waits for the first (busy timeout) and
# neither loses a write. Readers work while a writer runs (WAL) and on a
# read-only archive file in a read-only folder.
python3 "$SRC/tests/harness/gen_seed_cases.py" files gen 1 1200
mkdir a b; mv gen/GEN-0000* a/; mv gen/GEN-* b/   # 999 + 201 case files
"$FAILMAP" --db w.db import "$SRC/cases/FA-98921.json" >/dev/null

"$FAILMAP" --db w.db import a >a.out 2>a.err & pa=$!
"$FAILMAP" --db w.db import b >b.out 2>b.err & pb=$!
wait $pa || fail "first writer failed: $(cat a.err)"
wait $pb || fail "second writer failed: $(cat b.err)"
[ "$(sqlite3 w.db 'SELECT count(*) FROM cases')" = 1201 ] || fail "a concurrent import lost cases"
[ "$(sqlite3 w.db 'PRAGMA integrity_check')" = ok ] || fail "integrity_check failed"

# The same into a new archive, whose first import writes in rollback-journal
# mode: the second writer waits too (SQLite refuses its switch to WAL at
# once, without the busy timeout; the open no longer fails on that), and the
# archive ends in WAL mode.
"$FAILMAP" --db n.db import a >na.out 2>na.err & pa=$!
sleep 0.1
"$FAILMAP" --db n.db import b >nb.out 2>nb.err & pb=$!
wait $pa || fail "first writer into a new archive failed: $(cat na.err)"
wait $pb || fail "second writer into a new archive failed: $(cat nb.err)"
[ "$(sqlite3 n.db 'SELECT count(*) FROM cases')" = 1200 ] || fail "a concurrent import into a new archive lost cases"
[ "$(sqlite3 n.db 'PRAGMA journal_mode')" = wal ] || fail "the new archive did not end in WAL mode"
# Deterministically: a writer holding the archive in rollback-journal mode
# (as that first import does) makes a second writer wait, not fail at once
# saying it waited 10 s.
cp w.db r.db
( sqlite3 r.db "PRAGMA journal_mode=DELETE;" "BEGIN IMMEDIATE; SELECT 1;" ".shell sleep 3" "COMMIT;" >/dev/null ) & holder=$!
sleep 0.5
expect_status 0 "$FAILMAP" --db r.db import "$SRC/cases/"
wait $holder
[ "$(sqlite3 r.db 'SELECT count(*) FROM cases')" = $((1200 + SHIPPED)) ] || fail "the waiting writer's import is missing"

# A second writer that cannot get the lock within the wait fails with its own
# exit status (3, not an input error) and message, having waited the whole
# wait, and changes nothing (the lock is held by sqlite3).
before=$(archive_state w.db)
( sqlite3 w.db "BEGIN IMMEDIATE; SELECT 1;" ".shell sleep 6" "COMMIT;" >/dev/null ) & holder=$!
sleep 0.5
start=$(date +%s%N)
FAILMAP_BUSY_TIMEOUT=2 expect_status 3 "$FAILMAP" --db w.db run FA-98921
waited_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_error_mentions "w.db: the archive is busy: another process held its write lock for 2 s"
[ "$waited_ms" -ge 1900 ] || fail "the busy writer gave up after $waited_ms ms, not the 2 s wait"
wait $holder
[ "$(archive_state w.db)" = "$before" ] || fail "the refused writer changed the archive"
# With a wait longer than the holder's lock, the same writer waits and
# records its runs: exit 1, as the broken strategy fails its checks by design.
( sqlite3 w.db "BEGIN IMMEDIATE; SELECT 1;" ".shell sleep 3" "COMMIT;" >/dev/null ) & holder=$!
sleep 0.5
FAILMAP_BUSY_TIMEOUT=20 expect_status 1 "$FAILMAP" --db w.db run FA-98921
wait $holder

# Readers while a writer runs: every case's runs (in the open build, which
# refuses `run --all` for want of the repairs, each case's broken run in turn).
if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then
  "$FAILMAP" --db w.db -q run --all >/dev/null & pw=$!
else
  ("$FAILMAP" --db w.db list --json | python3 -c 'import json, sys; [print(json.loads(l)["id"]) for l in sys.stdin]' |
    while read -r id; do "$FAILMAP" --db w.db -q run "$id" --strategy broken >/dev/null || [ $? -le 1 ] || exit 2; done) &
  pw=$!
fi
for i in 1 2 3; do
  expect_status 0 "$FAILMAP" --db w.db list
  expect_status 0 "$FAILMAP" --db w.db show GEN-000500
done
wait $pw || [ $? -le 1 ] || fail "the concurrent run --all failed (not checks failing by design)"
expect_status 0 "$FAILMAP" --db w.db verify

# Read-only file in a read-only folder, read by an unprivileged user (root
# would ignore the permissions).
mkdir ro; cp w.db ro/; sqlite3 ro/w.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
chmod 444 ro/w.db; chmod 555 ro; chmod 755 .
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
expect_status 0 as_nobody "$FAILMAP" --db ro/w.db list
expect_status 0 as_nobody "$FAILMAP" --db ro/w.db show GEN-000500
expect_status 0 as_nobody "$FAILMAP" --db ro/w.db verify GEN-000500
expect_status 2 as_nobody "$FAILMAP" --db ro/w.db run GEN-000500
expect_error_mentions "ro/w.db: the archive is read-only (file or folder permissions); this command writes"
# A write command says so once, naming the archive (not once per case, not
# naming the input file).
before_ro=$(sha256sum < ro/w.db)
for cmd in "instantiate warmup-off-by-one --param N=10..109" "import $SRC/cases/FA-98921.json"; do
  expect_status 2 as_nobody "$FAILMAP" --db ro/w.db $cmd
  expect_error_mentions "ro/w.db: the archive is read-only (file or folder permissions); this command writes"
  [ "$(grep -c "error" stderr.txt)" = 1 ] || fail "$cmd on a read-only archive: expected one error, got: $(cat stderr.txt)"
done
[ "$(sha256sum < ro/w.db)" = "$before_ro" ] || fail "a refused write changed the read-only archive"
true

# Deterministically: a command opening a new archive reads its schema version
# (0), then waits for the write lock while another process migrates it (here
# sqlite3 applies migration 1 and holds the lock 2 s). Inside its own
# transaction it reads the version again and goes on from 1; before, it ran
# migration 1 a second time ("table mechanisms already exists").
: > m.db
( sqlite3 m.db "BEGIN IMMEDIATE;" ".read $SRC/schema/001_initial.sql" "PRAGMA user_version = 1;" ".shell sleep 2" \
    "COMMIT;" >/dev/null ) & holder=$!
sleep 0.5
expect_status 0 "$FAILMAP" --db m.db import "$SRC/cases/FA-98921.json"
wait $holder
[ "$(sqlite3 m.db 'SELECT count(*) FROM cases')" = 1 ] || fail "the import after a concurrent migration is missing"
[ "$(sqlite3 m.db 'PRAGMA user_version')" = "$(sqlite3 w.db 'PRAGMA user_version')" ] || fail "m.db was not migrated to the current version"
