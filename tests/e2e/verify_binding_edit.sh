# verify after a case's binding is edited with sqlite3: every difference line
# is true. The stored side of a run shows what the archive holds for it — its
# actual values, and its `passed` values only while the document rebuilt from
# them is the one the run digest was taken of — never a `passed` recomputed
# against the edited expected values (the trial's "repaired passed: stored
# false" for a run that passed).
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null 2>&1
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1"; }
# The stored run digests (N = 1, schema/DIGESTS.md's worked example) and the
# replayed ones: the documents Python's reference scripts print at N = 2.
stored_digest() { sqlite3 clean.db "SELECT lower(hex(digest)) FROM runs WHERE case_id = 'FA-98921' AND strategy = $1"; }
"$FAILMAP" --db n2.db instantiate gradient-accumulation-weighting --param N=2..2 >/dev/null
python_digest() {
  "$FAILMAP" --db n2.db reference V-gradient-accumulation-weighting-2 --strategy "$1" > "$1.py"
  python3 "$1.py" | head -c -1 | sha256sum | cut -d' ' -f1
}
b0=$(stored_digest 0) u0=$(stored_digest 1) r0=$(stored_digest 2)
[ "$b0 $u0 $r0" = "a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68 c68294d1a5b8a95e0ea1f83769fa7c0ea4218b82eb18c73480bc0ef98be4c9c7 b699e64495b8f9be96c9d904c987575df8bf9f95d8c4ad44b47a88d7e7a75394" ] ||
  fail "stored run digests: $b0 $u0 $r0"
b2=$(python_digest broken) u2=$(python_digest unsuccessful) r2=$(python_digest repaired)
# Field digests of the binding: SHA-256 of {"N":"1"} and {"N":"2"} (schema/DIGESTS.md).
p1=$(printf '{"N":"1"}' | sha256sum | cut -d' ' -f1) p2=$(printf '{"N":"2"}' | sha256sum | cut -d' ' -f1)

# The stored and replayed actual values of the unsuccessful and repaired runs
# (repaired: the expected values at N = 1, 3 2 1 0 3 2 3, and at N = 2,
# 5 4 1 0 6 5 3), the same lines in both scenarios below.
unsuccessful_actuals="FA-98921  unsuccessful  observations[0].actual: stored 2, recomputed 4
FA-98921  unsuccessful  observations[1].actual: stored 2, recomputed 4
FA-98921  unsuccessful  observations[4].actual: stored 3, recomputed 6
FA-98921  unsuccessful  observations[5].actual: stored 2, recomputed 3"
repaired_lines="FA-98921  repaired  observations[0].actual: stored 3, recomputed 5
FA-98921  repaired  observations[1].actual: stored 2, recomputed 4
FA-98921  repaired  observations[4].actual: stored 3, recomputed 6
FA-98921  repaired  observations[5].actual: stored 2, recomputed 5
FA-98921  repaired  digest: stored $r0, recomputed $r2"

# 1. The binding alone (N 1 -> 2): the stored fixtures still are the ones the
# runs were recorded with, so each run's rebuilt document is the recorded one
# (its digest is the stored digest) and its `passed` values are true ones. At
# N = 1 the repair passed every check (actuals 3 2 1 0 3 2 3 = expected); at
# N = 2 it returns the new expected values 5 4 1 0 6 5 3 and passes again:
# no `passed` line for it. The broken strategy's check 5 passed at N = 1
# (2 == 2) and fails at N = 2 (0 != 5).
fresh "UPDATE cases SET params = '{\"N\": 2}' WHERE id = 'FA-98921'"
expect_status 1 "$FAILMAP" --db t.db verify
[ -z "$err" ] || fail "verify printed an error: $err"
[ "$out" = "FA-98921  -  fixtures[0].args: stored [[1, 1, 1], 2], recomputed [[2, 2, 1], 4]
FA-98921  -  fixtures[0].expected: stored 3, recomputed 5
FA-98921  -  fixtures[1].args: stored [[1, 1], 1], recomputed [[2, 2], 2]
FA-98921  -  fixtures[1].expected: stored 2, recomputed 4
FA-98921  -  fixtures[2].args: stored [[1], 2], recomputed [[1], 3]
FA-98921  -  fixtures[3].args: stored [[], 1], recomputed [[], 2]
FA-98921  -  fixtures[4].args: stored [[3], 1], recomputed [[6], 2]
FA-98921  -  fixtures[4].expected: stored 3, recomputed 6
FA-98921  -  fixtures[5].args: stored [[2, 0], 2], recomputed [[4, 1], 3]
FA-98921  -  fixtures[5].expected: stored 2, recomputed 5
FA-98921  broken  observations[1].actual: stored 2, recomputed 4
FA-98921  broken  observations[5].actual: stored 2, recomputed 0
FA-98921  broken  observations[5].passed: stored true, recomputed false
FA-98921  broken  digest: stored $b0, recomputed $b2
$unsuccessful_actuals
FA-98921  unsuccessful  observations[5].passed: stored true, recomputed false
FA-98921  unsuccessful  digest: stored $u0, recomputed $u2
$repaired_lines
FA-98921  -  params: stored $p1, recomputed $p2
verified $SHIPPED case(s) and $((SHIPPED * 3)) replayed run(s): 26 mismatch(es)" ] || fail "binding edited: $out"

# 2. Binding and fixtures edited together, to the templates at N = 2: the
# stored fixtures are no longer the ones the runs were recorded with, so the
# document rebuilt from them is not the recorded one (not the stored digest's)
# and only the stored actual values are compared. Before, every run was
# rebuilt against the new expected values: "repaired passed: stored false".
n2=$(sqlite3 n2.db "SELECT fixture_values FROM cases")
[ "$n2" = "[[[[2, 2, 1], 4], 5], [[[2, 2], 2], 4], [[[1], 3], 1], [[[], 2], 0], [[[6], 2], 6], [[[4, 1], 3], 5], [[[1, 1, 1], 2], 3]]" ] ||
  fail "templates at N = 2: $n2"
fresh "UPDATE cases SET params = '{\"N\": 2}', fixture_values = '$n2' WHERE id = 'FA-98921'"
fixtures1=$(sqlite3 clean.db "SELECT fixture_values FROM cases WHERE id = 'FA-98921'")
f1=$(python3 -c 'import hashlib, json, sys
labels = ["short final batch", "all full batches", "single short", "empty", "oversized batch", "mixed remainder", "unit batch"]
for values in sys.argv[1:]:
    fx = [{"args": json.dumps(a), "expected": json.dumps(e), "label": l} for l, (a, e) in zip(labels, json.loads(values))]
    print(hashlib.sha256(json.dumps(fx, sort_keys=True, separators=(",", ":")).encode()).hexdigest())' "$fixtures1" "$n2")
f_stored=$(echo "$f1" | sed -n 1p) f_new=$(echo "$f1" | sed -n 2p)
for jobs in 1 2; do
  expect_status 1 "$FAILMAP" --db t.db verify --jobs $jobs
  [ -z "$err" ] || fail "verify printed an error: $err"
  [ "$out" = "FA-98921  broken  observations[1].actual: stored 2, recomputed 4
FA-98921  broken  observations[5].actual: stored 2, recomputed 0
FA-98921  broken  digest: stored $b0, recomputed $b2
$unsuccessful_actuals
FA-98921  unsuccessful  digest: stored $u0, recomputed $u2
$repaired_lines
FA-98921  -  fixtures: stored $f_stored, recomputed $f_new
FA-98921  -  params: stored $p1, recomputed $p2
verified $SHIPPED case(s) and $((SHIPPED * 3)) replayed run(s): 15 mismatch(es)" ] || fail "binding and fixtures edited (--jobs $jobs): $out"
done

# 3. One stored fixture edited (README's example): named once, as the
# fixture; the runs, replayed on the templates, are unchanged.
fresh "$(fixture_expected_sql clean.db FA-98921 0 4)"
expect_status 1 "$FAILMAP" --db t.db verify FA-98921
[ "$out" = "FA-98921  -  fixtures[0].expected: stored 4, recomputed 3
verified 1 case(s) and 3 replayed run(s): 1 mismatch(es)" ] || fail "fixture edited: $out"
