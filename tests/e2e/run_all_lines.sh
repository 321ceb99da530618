# The lines of `run --all`: one per run, with the columns at 12 and 26 (two
# spaces after a longer id), the check counts, the exit status, the digest
# of the observation document (hashed here with Python's hashlib from
# `run --format json`'s bytes) and UNEXPECTED for an outcome other than
# designed, which also makes the exit status 1.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" instantiate gradient-accumulation-weighting --param N=2 >/dev/null
digest() {  # digest CASE STRATEGY: SHA-256 of the observation document
  checks_may_fail "$FAILMAP" run "$1" --strategy "$2" --format json --no-record >doc.json
  python3 -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read().rstrip(b"\n")).hexdigest())' doc.json
}
long=V-gradient-accumulation-weighting-2
{
  printf 'FA-98921    broken        failed  3/7 checks passed  exit 1  %s\n' "$(digest FA-98921 broken)"
  printf 'FA-98921    unsuccessful  failed  4/7 checks passed  exit 1  %s\n' "$(digest FA-98921 unsuccessful)"
  printf 'FA-98921    repaired      passed  7/7 checks passed  exit 0  %s\n' "$(digest FA-98921 repaired)"
  printf '%s  broken        failed  2/7 checks passed  exit 1  %s\n' "$long" "$(digest "$long" broken)"
  printf '%s  unsuccessful  failed  3/7 checks passed  exit 1  %s\n' "$long" "$(digest "$long" unsuccessful)"
  printf '%s  repaired      passed  7/7 checks passed  exit 0  %s\n' "$long" "$(digest "$long" repaired)"
} >expected.txt
grep -q a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68 expected.txt || fail "FA-98921's broken digest changed"
for jobs in 1 2; do
  expect_status 0 "$FAILMAP" run --all --no-record --jobs "$jobs"
  diff expected.txt stdout.txt || fail "run --all lines differ at --jobs $jobs"
done

# The first check of FA-98921 expects 4 instead of 3: the repair now fails it.
sqlite3 "$FAILMAP_DB" "$(fixture_expected_sql "$FAILMAP_DB" FA-98921 0 4)"
expect_status 1 "$FAILMAP" run --all --no-record
grep -qx "FA-98921    repaired      failed  6/7 checks passed  exit 1  $(digest FA-98921 repaired)  UNEXPECTED" stdout.txt ||
  fail "no UNEXPECTED line for the failing repair"
grep -qx "FA-98921    broken        failed  3/7 checks passed  exit 1  $(digest FA-98921 broken)" stdout.txt ||
  fail "broken's line after the edit"
[ "$(grep -c UNEXPECTED stdout.txt)" -eq 1 ] || fail "UNEXPECTED on a run with its designed outcome"
grep -q "6 run(s); 1 with an outcome other than designed" stderr.txt || fail "summary line"
