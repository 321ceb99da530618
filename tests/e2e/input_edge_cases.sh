# Inputs a new user tried that once hung, wrapped or misreported (fresh-user
# trial of 2026-11-30): each now one clear error, exit 2, archive unchanged.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=2..3 >/dev/null
before=$(archive_state)

# An endless listing on stdin stops at its first bad line, not at the end of memory.
expect_status 2 timeout 20 "$FAILMAP" split --input /dev/zero --group-field g --ratios a=0.5,b=0.5 --out z1
[ "$(cat stderr.txt)" = "failmap: error: /dev/zero:1: NUL byte" ] || fail "listing of /dev/zero: $err"
set +e +o pipefail
yes '{"id":1,"g":"a"}' | timeout 60 "$FAILMAP" split --input /dev/stdin --group-field g --ratios a=0.5,b=0.5 --out z2 \
  2>stderr.txt >/dev/null
got=${PIPESTATUS[1]}
head -c 3000000 /dev/zero | tr '\0' a | timeout 20 "$FAILMAP" split --input /dev/stdin --group-field g \
  --ratios a=0.5,b=0.5 --out z3 2>long.txt >/dev/null
got_long=${PIPESTATUS[2]}
set -e -o pipefail
[ "$got" -eq 2 ] || fail "endless listing exited $got: $(cat stderr.txt)"
expect_error_mentions "lines, the cap for a listing (docs/README.md, \"Limits on untrusted input\")"
[ "$got_long" -eq 2 ] || fail "over-long listing line on stdin exited $got_long"
grep -qF "/dev/stdin:1: line longer than the 1 MiB limit" long.txt || fail "over-long line: $(cat long.txt)"

# --folds 0 is a bad fold count, not a missing option; seeds outside uint64 are refused, not wrapped.
expect_status 2 "$FAILMAP" split --folds 3 --seed -1 --out s2
expect_error_mentions "expected an integer from 0 to 18446744073709551615, got '-1'"
expect_status 2 "$FAILMAP" split --folds 3 --seed 18446744073709551616 --out s2
expect_error_mentions "got '18446744073709551616'"
# A fold count that is no int, or below 2: one line in failmap's words (was
# CLI11's "Could not convert"; -1 and 0 were refused in other words).
for k in 99999999999999999999 abc 2.5 -1 0 1; do
  expect_status 2 "$FAILMAP" split --folds "$k" --out s3
  [ "$err" = "failmap: error: --folds: expected a whole number of folds from 2 to 2147483647, got '$k'
Run 'failmap split --help' for usage." ] || fail "--folds $k: $err"
done

# A FIFO in an imported folder is refused (it would block forever); a link back to an ancestor is not followed.
mkdir fifo && mkfifo fifo/x.json
expect_status 2 timeout 20 "$FAILMAP" import fifo
expect_error_mentions "fifo/x.json: not a regular file"
mkdir -p loop/sub && ln -s .. loop/sub/up
expect_status 2 timeout 20 "$FAILMAP" import loop
expect_error_mentions "loop/sub/up: a link back to the folder"
[ "$(wc -l < stderr.txt)" -le 3 ] || fail "link loop: more than one error: $err"
[ "$(archive_state)" = "$before" ] || fail "a refused input changed the archive"
"$FAILMAP" --db all.db import "$SRC/cases" >/dev/null  # the shipped cases: units enough for 2 folds
expect_status 0 "$FAILMAP" --db all.db split --folds 2 --seed 18446744073709551615 --out s3
grep -q '"seed":18446744073709551615' s3/manifest.json || fail "largest seed not recorded: $(cat s3/manifest.json)"

# Long case ids keep their columns apart in `list` and `run --all`.
expect_status 0 "$FAILMAP" list
echo "$out" | grep -q "^V-gradient-accumulation-weighting-2  gradient-accumulation-weighting  " ||
  fail "list columns touch: $out"
echo "$out" | grep -q "^FA-98921 \{29\}gradient-accumulation-weighting \{9\}1 \{5\}open" ||
  fail "list columns of a short id: $out"
expect_status 0 "$FAILMAP" run --all
echo "$out" | grep -q "^V-gradient-accumulation-weighting-3  broken        failed  " || fail "run --all columns touch: $out"
echo "$out" | grep -q "^FA-98921    broken        failed  " || fail "run --all columns of a short id: $out"

# A write to an archive its user may not write is named as such (only testable as root, through another user).
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
  chmod o+x "$PWD" && mkdir ro && sqlite3 "$FAILMAP_DB" ".backup ro/r.db" && chmod 444 ro/r.db && chmod 555 ro
  ro_before=$(archive_state ro/r.db)
  expect_status 2 runuser -u nobody -- "$FAILMAP" --db ro/r.db import "$SRC/cases/FA-98921.json"
  expect_error_mentions "ro/r.db: the archive is read-only (file or folder permissions); this command writes"
  expect_status 0 runuser -u nobody -- "$FAILMAP" --db ro/r.db list
  [ "$(archive_state ro/r.db)" = "$ro_before" ] || fail "the read-only archive changed"
fi
