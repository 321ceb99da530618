# run CASE --format json prints one observation document, byte for byte the
# Python reference's, which does not name its strategy: without --strategy it
# is refused (exit 2, nothing recorded) instead of printing three unnamed
# documents. docs/run.md states the choice.
"$FAILMAP" -q import "$SRC/cases/FA-98921.json" >/dev/null
before=$(archive_state)
expect_status 2 "$FAILMAP" run FA-98921 --format json
[ -z "$out" ] || fail "run --format json without --strategy printed: $out"
[ "$err" = "failmap: error: --format json prints one observation document, byte for byte as the Python reference does, which does not name its strategy: give --strategy broken, unsuccessful or repaired (run --all --json prints one line per run with its case and strategy)" ] ||
  fail "run --format json without --strategy said: $err"
[ "$(archive_state)" = "$before" ] || fail "a refused run recorded something"
expect_status 2 "$FAILMAP" run FA-98921 --format json --no-record
# With a strategy: the reference's bytes, as before.
for s in broken unsuccessful $([ "${FAILMAP_REPAIRS:-1}" = 0 ] || echo repaired); do
  checks_may_fail "$FAILMAP" run FA-98921 --strategy $s --format json --no-record >fm.out
  "$FAILMAP" reference FA-98921 --strategy $s >ref.py
  checks_may_fail python3 ref.py >py.out
  cmp -s fm.out py.out || fail "$s: run --format json differs from the Python reference"
done
# The table form without --strategy still shows all three (the open build: its two), each named.
expect_status 1 "$FAILMAP" run FA-98921 --no-record
[ "$(printf '%s\n' "$out" | grep -c '^FA-98921 · ')" = "$STRATEGIES" ] || fail "table of $STRATEGIES strategies: $out"
