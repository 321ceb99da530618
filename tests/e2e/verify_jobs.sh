# verify --jobs N: on 1,300 cases (three read-ahead batches of 512) with
# tampered rows in the first and last batch, the report — every mismatch, in
# order, and the counts — is byte-identical to --jobs 1, text and --json; an
# unreadable row is the same finding in the same place; --jobs 0 is a usage
# error.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..1300 >/dev/null
checks_may_fail "$FAILMAP" -q run --all >/dev/null 2>&1
sqlite3 "$FAILMAP_DB" "
  $(fixture_expected_sql "$FAILMAP_DB" V-gradient-accumulation-weighting-3 0 99)
  UPDATE cases SET recorded_at = 'edited' WHERE id = 'V-gradient-accumulation-weighting-1299';
  UPDATE runs SET exit_status = 0 WHERE case_id = 'V-gradient-accumulation-weighting-700' AND strategy = 0;"
expect_status 1 "$FAILMAP" verify --json --jobs 1
one=$out
python3 - "$one" <<'PY' || fail "verify --jobs 1 did not name the three tampered cases: $one"
import json, sys
r = json.loads(sys.argv[1])
assert r["cases"] == 1300 and r["runs"] == 3900, r
cases = [m["case"] for m in r["mismatches"]]
assert sorted(set(cases)) == ["V-gradient-accumulation-weighting-1299", "V-gradient-accumulation-weighting-3",
                              "V-gradient-accumulation-weighting-700"], cases
PY
for jobs in 2 3 8; do
  expect_status 1 "$FAILMAP" verify --json --jobs "$jobs"
  [ "$out" = "$one" ] || fail "verify --json --jobs $jobs differs from --jobs 1"
done
expect_status 1 "$FAILMAP" verify
text_one=$out
expect_status 1 "$FAILMAP" verify -j 2
[ "$out" = "$text_one" ] || fail "verify -j 2 text report differs from --jobs 1"

# An unreadable row (a digest that is not 32 bytes, forced past the CHECK)
# in the second batch: the same report, with that case one "unreadable"
# finding among the others.
sqlite3 "$FAILMAP_DB" "PRAGMA ignore_check_constraints = ON;
  UPDATE runs SET digest = x'00' WHERE case_id = 'V-gradient-accumulation-weighting-900' AND strategy = 1;"
expect_status 1 "$FAILMAP" verify --jobs 1
text_one=$out
grep -qxF "V-gradient-accumulation-weighting-900  -  unreadable: $FAILMAP_DB: case V-gradient-accumulation-weighting-900, field unsuccessful run digest: '00' is not a SHA-256 digest (32 bytes)" stdout.txt ||
  fail "no unreadable finding for case 900: $out"
[ "$(tail -n 1 stdout.txt)" = "verified 1300 case(s) and 3897 replayed run(s): 4 mismatch(es)" ] || fail "summary: $(tail -n 1 stdout.txt)"
expect_status 1 "$FAILMAP" verify --jobs 2
[ "$out" = "$text_one" ] || fail "verify --jobs 2 differs from --jobs 1 with an unreadable row"

expect_status 2 "$FAILMAP" verify --jobs 0
expect_error_mentions "--jobs: expected a whole number of threads from 1 to 256, got '0'"
