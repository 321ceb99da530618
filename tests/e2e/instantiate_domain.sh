# failmap instantiate refuses parameter values below the mechanism's declared
# minimum (N >= 1 for every compiled-in mechanism: the templates use N as a
# size or count): one error naming parameter, value and allowed range, exit 2,
# no archive created and an existing archive unchanged.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 2 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=0..2
[ -z "$out" ] || fail "refused instantiate printed '$out'"
[ "$err" = "failmap: error: --param N=0..2: N = 0 is outside the domain of gradient-accumulation-weighting: N must be an integer >= 1 (its fixture templates use N as a size or count)" ] ||
  fail "N=0..2: $err"
[ ! -e "$FAILMAP_DB" ] || fail "a refused instantiate created the archive"

# Before, N = 0 even made a case whose repair fails its own checks.
expect_status 2 "$FAILMAP" instantiate steps-per-epoch-with-accumulation --param N=0 --json
[ -z "$out" ] || fail "refused instantiate --json printed '$out'"
expect_error_mentions "--param N=0: N = 0 is outside the domain of steps-per-epoch-with-accumulation: N must be an integer >= 1"

"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
before=$(archive_state)
for range in -1 -5..-2 -3..4 -9223372036854775808..1; do
  expect_status 2 "$FAILMAP" instantiate warmup-off-by-one --param "N=$range" --id-prefix W
  expect_error_mentions "--param N=$range: N = ${range%%..*} is outside the domain of warmup-off-by-one: N must be an integer >= 1"
done
[ "$(archive_state)" = "$before" ] || fail "a refused instantiate changed the archive"

# The minimum itself is accepted, and its cases run as designed.
expect_status 0 "$FAILMAP" instantiate steps-per-epoch-with-accumulation --param N=1..3 --id-prefix W
[ "$out" = "instantiated 3 case(s) of steps-per-epoch-with-accumulation (N = 1..3): 3 new, 0 replaced, 0 unchanged; ids W-steps-per-epoch-with-accumulation-1 .. W-steps-per-epoch-with-accumulation-3" ] ||
  fail "N=1..3: $out"
expect_status 0 "$FAILMAP" run W-steps-per-epoch-with-accumulation-1 --strategy repaired --no-record --format json
[ "$(printf '%s\n' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["passed"])')" = True ] ||
  fail "repair at N=1: $out"

# An unknown mechanism names the command that lists the compiled ones (it said "see src/mechanisms/", a folder
# a user without the source tree does not have).
expect_status 2 "$FAILMAP" instantiate nope --param N=1
[ "$err" = "failmap: error: unknown mechanism 'nope' (see \`failmap mechanisms\`)" ] || fail "instantiate nope said: $err"
