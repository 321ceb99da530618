# failmap serve records gradings only with --record. Without it the archive is the same after grading and its
# record stays empty. With it, a batch's gradings are recorded but for the machine-dependent one (a timeout),
# committed while the server runs; the same batch again is answered from the record with the same bytes, and
# /metrics counts the recalled ones; `failmap grade` of the batch then recalls every recorded grading and writes
# the served bytes as results.jsonl, and a server recalls what grade recorded. A record edited behind failmap's back is not served: the reply is the fresh
# grading's bytes, and the record is replaced. An archive whose write lock another process holds does not fail a
# request: the failure is logged and counted, and the gradings are recorded once the lock is free.
source "$SRC/tests/harness/serve.sh"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
# The demo predictions and a candidate that loops: a timeout at --timeout 1, which depends on the machine.
cp "$SRC/tests/data/predictions/demo.jsonl" preds.jsonl
printf '%s\n' '{"case": "FA-98921", "model": "slow", "sample": 0, "source": "def solve(batch_sizes, target):\n    while True:\n        pass\n"}' >> preds.jsonl
post() { curl -sS --fail-with-body -H 'Content-Type: application/jsonl' --data-binary @"$1" "$URL/v1/grade" -o "$2" || fail "POST $1: $(cat "$2")"; }
# metric NAME: its value in the last /metrics (metrics.txt); a name without labels, or the sum over its labels.
metric() { python3 -c 'import sys
total = 0
for line in open("metrics.txt"):
    if line.startswith("#") or not line.strip(): continue
    name, value = line.rsplit(" ", 1)
    if name.split("{")[0] == sys.argv[1]: total += float(value)
print(int(total))' "$1"; }
records() { sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings'; }

# 1. Without --record: the archive's content and its file are unchanged, nothing recorded or recalled.
[ "$(records)" = 0 ] || fail "a fresh archive holds records"
before=$(archive_state)
before_file=$(sha256sum < "$FAILMAP_DB")
start_server --jobs 2 --timeout 1
post preds.jsonl plain.jsonl
post preds.jsonl plain2.jsonl
cmp plain.jsonl plain2.jsonl || fail "two gradings without --record differ"
curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
[ "$(metric failmap_gradings_recorded_total)/$(metric failmap_gradings_recalled_total)/$(metric failmap_candidates_graded_total)" = 0/0/14 ] ||
  fail "metrics without --record: $(grep -v '^#' metrics.txt)"
stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve exited $SERVE_STATUS: $(cat serve.log)"
[ "$(archive_state)" = "$before" ] || fail "serve without --record changed the archive"
[ "$(sha256sum < "$FAILMAP_DB")" = "$before_file" ] || fail "serve without --record changed the archive's file"
[ "$(records)" = 0 ] || fail "serve without --record recorded $(records) grading(s)"

# What the reply says should be recorded: every line but those whose error depends on the machine.
python3 - plain.jsonl > expected_keys.txt <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 7 and lines[6]["verdict"] == "error" and lines[6]["error"]["kind"] == "timeout", lines[6]
for r in lines:
    if r["verdict"] == "error" and r["error"]["kind"] in ("timeout", "memory", "sandbox"):
        continue
    print(r["case_digest"], r["source_sha256"])
PY
sort -o expected_keys.txt expected_keys.txt
[ "$(wc -l < expected_keys.txt)" = 6 ] || fail "expected 6 gradings to record: $(cat expected_keys.txt)"
keys() { sqlite3 "$FAILMAP_DB" 'SELECT lower(hex(case_digest)) || " " || lower(hex(source_sha256)) FROM gradings' | sort; }

# 2. --record: the same bytes; the six committed while the server runs (at least every 2 s), then recalled.
start_server --jobs 2 --timeout 1 --record
grep -q ', --record)$' serve.log || fail "the serving line does not say --record: $(cat serve.log)"
post preds.jsonl r1.jsonl
cmp r1.jsonl plain.jsonl || fail "serve --record answered other bytes than serve"
# The counter counts a commit once it is done: then the table holds the six.
for _ in $(seq 1 100); do
  curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
  [ "$(metric failmap_gradings_recorded_total)" = 6 ] && break
  sleep 0.1
done
[ "$(keys)" = "$(cat expected_keys.txt)" ] || fail "recorded keys: $(keys); expected: $(cat expected_keys.txt)"
[ "$(metric failmap_gradings_recorded_total)/$(metric failmap_gradings_recalled_total)/$(metric failmap_candidates_graded_total)" = 6/0/7 ] ||
  fail "metrics after the first batch: $(grep -v '^#' metrics.txt)"
post preds.jsonl r2.jsonl
cmp r2.jsonl r1.jsonl || fail "a batch answered from the record differs from its fresh grading"
curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
# Six recalled, the timeout graded again (7 + 1 candidates run), nothing refused or failed.
[ "$(metric failmap_gradings_recalled_total)/$(metric failmap_candidates_graded_total)" = 6/8 ] ||
  fail "metrics after the second batch: $(grep -v '^#' metrics.txt)"
[ "$(metric failmap_records_refused_total)/$(metric failmap_record_errors_total)" = 0/0 ] ||
  fail "refused or failed: $(grep -v '^#' metrics.txt)"
stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve --record exited $SERVE_STATUS: $(cat serve.log)"
[ "$(records)" = 6 ] || fail "after SIGTERM the record holds $(records) grading(s)"

# 3. grade with the same settings recalls the six the server recorded and writes the served bytes.
expect_status 0 "$FAILMAP" grade preds.jsonl --out g --timeout 1
cmp g/results.jsonl r1.jsonl || fail "grade's results.jsonl differs from the served lines"
python3 -c 'import json; r = json.load(open("g/record.json")); assert r["recalled_lines"] == [1, 2, 3, 4, 5, 6] and r["refused_records"] == [] and r["recorded"] == 0, r' ||
  fail "grade did not recall the served gradings: $(cat g/record.json)"
# And the other way round: grade --regrade writes the six records anew, which the next server recalls (below).
expect_status 0 "$FAILMAP" grade preds.jsonl --out g2 --timeout 1 --regrade
cmp g2/results.jsonl r1.jsonl || fail "grade --regrade's results.jsonl differs from the served lines"
python3 -c 'import json; r = json.load(open("g2/record.json")); assert r["recalled_lines"] == [] and r["recorded"] == 6, r' ||
  fail "grade --regrade did not record six gradings: $(cat g2/record.json)"

# 4. The records grade wrote are recalled, but for one edited (an unresolved verdict made resolved): it is
# judged again, graded anew, the fresh bytes served, a warning logged, the record replaced (verify finds every
# record matching again).
sqlite3 "$FAILMAP_DB" "UPDATE gradings SET result = replace(result, '\"verdict\":\"unresolved\"', '\"verdict\":\"resolved\"')"
expect_status 1 "$FAILMAP" verify
grep -qF "1 mismatch(es)" stdout.txt || fail "the edit did not make one record mismatch: $out"
# Its source: the one whose line says unresolved.
edited=$(python3 -c 'import json,sys; print(*[r["source_sha256"] for r in map(json.loads, open("r1.jsonl")) if r["verdict"] == "unresolved"])')
[ "${#edited}" = 64 ] || fail "expected one unresolved line: $edited"
FAILMAP_BUSY_TIMEOUT=1 start_server --jobs 2 --timeout 1 --record
post preds.jsonl r3.jsonl
cmp r3.jsonl r1.jsonl || fail "an edited record changed the served bytes"
grep -qF "the archive's record of the grading of source $edited against case FA-98921: field 'verdict': stored \"resolved\", recomputed \"unresolved\" — graded anew, the record replaced" serve.log ||
  fail "no warning names the edited record: $(cat serve.log)"
curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
[ "$(metric failmap_records_refused_total)/$(metric failmap_gradings_recalled_total)/$(metric failmap_candidates_graded_total)" = 1/5/2 ] ||
  fail "metrics with an edited record: $(grep -v '^#' metrics.txt)"

# 5. Another process holds the archive's write lock (FAILMAP_BUSY_TIMEOUT=1 for the server): the reply is
# still right, the failed commit is logged and counted, and the gradings are recorded when the lock is free.
sed 's/\\n"}$/\\n# another\\n"}/' "$SRC/tests/data/predictions/demo.jsonl" > other.jsonl
expect_status 0 "$FAILMAP" grade other.jsonl --out o --no-record --timeout 1
python3 - "$FAILMAP_DB" > locker.log 2>&1 <<'PY' &
import os, sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
open("locked", "w").close()
while not os.path.exists("release"):
    time.sleep(0.05)
con.execute("COMMIT")
PY
locker=$!
for _ in $(seq 1 100); do [ -e locked ] && break; sleep 0.1; done
[ -e locked ] || fail "the write lock was not taken: $(cat locker.log)"
post other.jsonl r4.jsonl
cmp r4.jsonl o/results.jsonl || fail "with the archive locked the reply differs from grade --no-record's"
for _ in $(seq 1 100); do grep -q 'could not record' serve.log && break; sleep 0.1; done
# The server commits what it has graded so far: the first refused commit holds 1 to 6 of the gradings.
grep -qE "failmap: serve --record: could not record [1-6] grading\(s\): the archive is busy" serve.log ||
  fail "the failed commit was not logged: $(cat serve.log)"
curl -sS --fail-with-body "$URL/metrics" -o metrics.txt
[ "$(metric failmap_record_errors_total)" -ge 1 ] || fail "the failed commit was not counted: $(grep -v '^#' metrics.txt)"
touch release
wait "$locker"
for _ in $(seq 1 100); do [ "$(records)" = 12 ] && break; sleep 0.1; done
[ "$(records)" = 12 ] || fail "after the lock was freed the record holds $(records) grading(s), expected 6 + 6"
stop_server
[ "$SERVE_STATUS" = 0 ] || fail "serve --record exited $SERVE_STATUS: $(cat serve.log)"
expect_no_sandbox_left
expect_status 0 "$FAILMAP" verify
[ "$(tail -1 stdout.txt)" = "verified $SHIPPED case(s), 0 replayed run(s) and 12 recorded grading(s): everything matches" ] ||
  fail "verify after serving: $out"
