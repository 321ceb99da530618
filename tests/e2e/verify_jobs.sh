# verify --jobs N: on 1,300 cases (three read-ahead batches of 512) with
# tampered rows in the first and last batch, the report — every mismatch, in
# order, and the counts — is byte-identical to --jobs 1, text and --json; an
# unusable row gives the same first error; --jobs 0 is a usage error.
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..1300 >/dev/null
"$FAILMAP" -q run --all >/dev/null 2>&1 || true
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

# An unusable row (a digest that is not 32 bytes, forced past the CHECK) in
# the second batch: both give the same first error, exit 2.
sqlite3 "$FAILMAP_DB" "PRAGMA ignore_check_constraints = ON;
  UPDATE runs SET digest = x'00' WHERE case_id = 'V-gradient-accumulation-weighting-900' AND strategy = 1;"
expect_status 2 "$FAILMAP" verify --jobs 1
err_one=$err
expect_error_mentions "V-gradient-accumulation-weighting-900"
expect_status 2 "$FAILMAP" verify --jobs 2
[ "$err" = "$err_one" ] || fail "first error differs: '$err' vs '$err_one'"

expect_status 2 "$FAILMAP" verify --jobs 0
expect_error_mentions "--jobs: expected a whole number of threads from 1 to 256, got '0'"
