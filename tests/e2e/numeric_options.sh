# Every numeric option of every command refuses a bad value in failmap's words: the option, what it expects
# (unit and range), what it found; exit 2, nothing written. Before: `grade --timeout abc` and `--memory 1e3`
# printed CLI11's "Could not convert: --timeout = abc", `--held-out -1` named neither the value nor a range.

# bad CMD... -- OPTION VALUE EXPECTED: the one error line (and the usage hint) is exactly this.
bad() {
  local opt=$1 value=$2 expected=$3; shift 3
  expect_status 2 "$FAILMAP" "$@" "$opt" "$value"
  local where="failmap $1"; [ "${2:-}" = merge ] && where="failmap $1 merge"
  [ "$err" = "failmap: error: $opt: expected $expected, got '$value'
Run '$where --help' for usage." ] || fail "$* $opt $value said: $err"
}
touch p.jsonl
for v in abc 0 -1 3601 nan inf 0x10 ''; do
  bad --timeout "$v" "seconds greater than 0 and at most 3600" grade p.jsonl --out g
done
for v in abc 63 1e3 -1 1048577 2.5 18446744073709551616; do
  bad --memory "$v" "a whole number of MiB from 64 to 1048576" grade p.jsonl --out g
done
for v in abc -1 1001 1.5; do
  bad --held-out "$v" "a whole number of bindings from 0 to 1000" grade p.jsonl --out g
done
for v in abc 0 257 -1; do
  bad --jobs "$v" "a whole number of threads from 1 to 256" grade p.jsonl --out g
  bad --jobs "$v" "a whole number of threads from 1 to 256" export --out e
  bad --jobs "$v" "a whole number of threads from 1 to 256" import p.jsonl
  bad --jobs "$v" "a whole number of threads from 1 to 256" run --all
  bad --jobs "$v" "a whole number of threads from 1 to 256" verify
done
for v in abc 1 -1 2.5 99999999999999999999; do
  bad --folds "$v" "a whole number of folds from 2 to 2147483647" split --out s
done
for v in abc -1 18446744073709551616 1e3; do
  bad --seed "$v" "an integer from 0 to 18446744073709551615" split --folds 2 --out s
done
[ ! -e g ] && [ ! -e e ] && [ ! -e s ] || fail "a refused command wrote its folder"
# Accepted values still work: a decimal timeout, the bounds themselves.
expect_status 2 "$FAILMAP" grade p.jsonl --out g --timeout 0.5 --memory 64 --held-out 1000 --jobs 256
# (the options pass; the empty predictions file is what is refused)
[ "$err" = "failmap: error: p.jsonl: holds no prediction (expected one JSON object per line: {\"case\", \"model\", \"sample\", \"source\"}, schema/GRADING.md)" ] ||
  fail "an accepted value was refused: $err"

# No numeric option is left to CLI11's conversion: in every command's --help, an option typed INT, UINT or
# FLOAT carries a validator (CLI11 prints it after a colon, e.g. "UINT:1..256").
commands=$("$FAILMAP" help | sed -n 's/^  \([a-z-]*\)  .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 17 ] || fail "failmap help listed: $commands"
for c in $commands "grade merge" "split check" "digest regenerate"; do
  # shellcheck disable=SC2086
  "$FAILMAP" $c --help > help.txt
  if grep -E '^ +-.* (U?INT|FLOAT)( |=|$)' help.txt; then fail "failmap $c: a numeric option without a validator"; fi
done
