# The archive's record of gradings is judged again, never believed: an edited
# record is graded anew (a warning names it, the record is replaced) and
# `verify` reports it; a machine-dependent error (a timeout) is not recorded;
# `--regrade` recalls nothing; `grade forget` drops records; the key holds
# the build and the interpreter.
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
expect_status 0 "$FAILMAP" grade "$PRED" --out g1
expect_status 0 "$FAILMAP" verify
[ "$(tail -1 stdout.txt)" = "verified $SHIPPED case(s), 0 replayed run(s) and 6 recorded grading(s): everything matches" ] ||
  fail "verify of honest records: $out"
# The key's settings name the build and the resolved interpreter.
settings=$(sqlite3 "$FAILMAP_DB" 'SELECT settings FROM gradings LIMIT 1')
python3 - "$settings" <<'PY'
import json, os, sys, hashlib
s = json.loads(sys.argv[1])
python = os.path.realpath("/usr/bin/python3")
assert s["python"] == python + " sha256:" + hashlib.sha256(open(python, "rb").read()).hexdigest(), s["python"]
assert s["build"].startswith(("gnu-build-id:", "sha256:")) and len(s["build"]) > 20, s["build"]
PY

# An edit behind failmap's back: every unresolved verdict made resolved.
sqlite3 "$FAILMAP_DB" "UPDATE gradings SET result = replace(result, '\"verdict\":\"unresolved\"', '\"verdict\":\"resolved\"')"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM gradings WHERE result LIKE '%\"verdict\":\"resolved\"%'")" = 3 ] || fail "the edit did not apply"
expect_status 1 "$FAILMAP" verify
grep -qF "grading of source " stdout.txt || fail "verify did not name the edited record: $out"
grep -qF "field 'verdict': stored \"resolved\", recomputed \"unresolved\"" stdout.txt || fail "verify: $out"
[ "$(tail -1 stdout.txt)" = "verified $SHIPPED case(s), 0 replayed run(s) and 6 recorded grading(s): 1 mismatch(es)" ] || fail "verify: $out"
expect_status 1 "$FAILMAP" verify --json
python3 -c 'import json,sys; j = json.loads(sys.argv[1]); g = j["gradings"]; assert not j["ok"] and g["checked"] == 6 and len(g["mismatches"]) == 1, g' "$out" ||
  fail "verify --json: $out"
# The next grade judges the record again: the line says unresolved, the same bytes as the first grading.
expect_status 0 "$FAILMAP" grade "$PRED" --out g2
cmp -s g1/results.jsonl g2/results.jsonl || fail "an edited record changed the results"
cmp -s g1/summary.json g2/summary.json || fail "an edited record changed the summary"
expect_error_mentions "demo.jsonl:4: the archive's record of this grading: field 'verdict': stored \"resolved\", recomputed \"unresolved\" — graded anew, the record replaced"
python3 -c 'import json; r = json.load(open("g2/record.json")); assert r["recalled_lines"] == [1, 2, 3, 5, 6] and len(r["refused_records"]) == 1 and r["recorded"] == 1, r' ||
  fail "record.json: $(cat g2/record.json)"
expect_status 0 "$FAILMAP" verify   # the record was replaced by the fresh grading

# A record of another shape: an edited observation.
sqlite3 "$FAILMAP_DB" "UPDATE gradings SET result = replace(result, '\\\"actual\\\": 2,', '\\\"actual\\\": 3,')"
expect_status 0 "$FAILMAP" grade "$PRED" --out g3
cmp -s g1/results.jsonl g3/results.jsonl || fail "an edited actual value in the record changed the results"

# --regrade recalls nothing and rewrites every record.
expect_status 0 "$FAILMAP" grade "$PRED" --out g4 --regrade
cmp -s g1/results.jsonl g4/results.jsonl || fail "--regrade changed the results"
python3 -c 'import json; r = json.load(open("g4/record.json")); assert r["recalled_lines"] == [] and r["recorded"] == 6 and r["regrade"], r' ||
  fail "--regrade record.json: $(cat g4/record.json)"
expect_status 2 "$FAILMAP" grade "$PRED" --out g5 --regrade --no-record
expect_error_mentions "--regrade and --no-record"

# A timeout depends on the machine: graded, never recorded.
printf '%s\n' '{"case": "FA-98921", "model": "slow", "source": "def solve(batch_sizes, target):\n    while True:\n        pass\n"}' > slow.jsonl
expect_status 0 "$FAILMAP" grade slow.jsonl --out s1 --timeout 1
python3 -c 'import json; r = json.loads(open("s1/results.jsonl").readline()); assert r["error"]["kind"] == "timeout", r["error"]' || fail "not a timeout"
python3 -c 'import json; r = json.load(open("s1/record.json")); assert r["recorded"] == 0, r' || fail "a timeout was recorded: $(cat s1/record.json)"
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings')" = 6 ] || fail "a timeout was recorded"

# grade forget: by case, stale ones, all.
expect_status 0 "$FAILMAP" grade forget --case FA-98921
[ "$out" = "forgot 6 recorded grading(s)" ] || fail "forget --case: $out"
expect_status 0 "$FAILMAP" grade "$PRED" --out g6
expect_status 0 "$FAILMAP" grade forget --stale
[ "$out" = "forgot 0 recorded grading(s)" ] || fail "forget --stale: $out"
expect_status 2 "$FAILMAP" grade forget
expect_error_mentions "say which records"
expect_status 2 "$FAILMAP" grade forget --case NO-SUCH
expect_error_mentions "no case NO-SUCH in"
expect_status 0 "$FAILMAP" grade forget --all --json
[ "$out" = '{"forgotten":6}' ] || fail "forget --all: $out"
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings')" = 0 ] || fail "forget --all left records"
