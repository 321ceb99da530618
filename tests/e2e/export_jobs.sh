# export --jobs N: cases are read in batches of 1,024 (ordered scans of the
# cases, published_runs, runs and repair_salts tables merged by case id) and
# rendered on N threads. On 2,501 cases (three batches; the seed page's case
# with its published digests first) and their 7,503 recorded runs, every N
# gives the same bytes as --jobs 1 at both tiers, naming every case on the
# command line (one query per case) gives the same bundle, verify-bundle
# recomputes every case digest and repair commitment, and pages agree too.
# A tampered archive fails with the error of the first bad case in id order,
# whether reading (a missing repair salt) or rendering (actuals that do not
# fit the fixtures) meets it, whatever N; the output folder is left empty.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$SEED"
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..2500 >/dev/null
checks_may_fail "$FAILMAP" -q run --all >/dev/null 2>&1
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM runs')" = 7503 ] || fail "expected 7,503 recorded runs"

for tier in open member; do
  expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --jobs 1 --out $tier-1
  [ "$(wc -l < $tier-1/cases.jsonl)" = 2501 ] || fail "$tier: expected 2,501 case records"
  runs=$([ $tier = open ] && echo 5002 || echo 7503)
  [ "$(wc -l < $tier-1/runs.jsonl)" = $runs ] || fail "$tier: expected $runs run records"
  head -1 $tier-1/cases.jsonl | grep -q '"id":"FA-98921".*"published":{"runs":\[{"strategy":"broken"' ||
    fail "$tier: the seed case's published runs are missing"
  for jobs in 2 3 8; do
    expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --jobs $jobs --out $tier-$jobs
    diff -r $tier-1 $tier-$jobs >/dev/null || fail "$tier: --jobs $jobs gave other bytes than --jobs 1"
  done
  # shellcheck disable=SC2046
  expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --out $tier-named $(sqlite3 "$FAILMAP_DB" 'SELECT id FROM cases')
  diff -r $tier-1 $tier-named >/dev/null || fail "$tier: naming every case gave another bundle"
done
expect_status 0 "$FAILMAP" verify-bundle member-1 --open open-1
case "$out" in *"2501 case(s), 7503 run(s)"*"2501 repair commitment(s) recomputed, 2501 matching open"*"everything matches"*) ;;
  *) fail "verify-bundle: $out" ;; esac
expect_status 0 "$FAILMAP" --db rt.db import member-1
expect_status 0 "$FAILMAP" --db rt.db export --format jsonl --tier member --out member-rt
diff -r member-1 member-rt >/dev/null || fail "import then export changed the bundle"
expect_status 0 "$FAILMAP" export --format pages --tier member --jobs 1 --out pages-1
expect_status 0 "$FAILMAP" export --format pages --tier member --jobs 2 --out pages-2
diff -r pages-1 pages-2 >/dev/null || fail "pages: --jobs 2 gave other bytes than --jobs 1"
[ "$(ls pages-1 | grep -c '\.txt$')" = 2501 ] || fail "expected 2,501 pages"

# Tampering: case number K in id order (0-based).
id_at() { sqlite3 "$FAILMAP_DB" "SELECT id FROM cases ORDER BY id LIMIT 1 OFFSET $1"; }
bad_actuals() { sqlite3 "$FAILMAP_DB" "UPDATE runs SET actuals = '[1, 2]' WHERE case_id = '$1' AND strategy = 0"; }
no_salt() { sqlite3 "$FAILMAP_DB" "DELETE FROM repair_salts WHERE case_id = '$1'"; }
# expect_first_error WANT: every N fails with the same error, naming WANT, and leaves the folder empty.
expect_first_error() {
  local first=""
  for jobs in 1 2 3; do
    rm -rf bad && mkdir bad
    expect_status 2 "$FAILMAP" export --format jsonl --tier member --jobs $jobs --out bad
    expect_error_mentions "$1"
    [ -z "$(ls -A bad)" ] || fail "--jobs $jobs: a failed export left files behind"
    [ -z "$first" ] || [ "$err" = "$first" ] || fail "--jobs $jobs: '$err' differs from --jobs 1: '$first'"
    first=$err
  done
}
a=$(id_at 1020) b=$(id_at 1025) c=$(id_at 1030) d=$(id_at 1100)
no_salt "$c"
bad_actuals "$d"
expect_first_error "case $c has no repair salt (table repair_salts)"   # a read error before a render error after it
bad_actuals "$b"
expect_first_error "case $b, broken run actuals"   # a render error before a read error later in its batch
bad_actuals "$a"
expect_first_error "case $a, broken run actuals"   # a render error in the batch before
