# CLI11's words for the usual command-line mistakes come out in failmap's (CLI11 would say "--timeout: At Most 1
# required but received 2", "The following arguments were not expected: json --format", in reverse order,
# and "dirs is required", an internal name). Exit 2, one error line, then where to look.
"$FAILMAP" -q import "$SRC/cases/FA-98921.json"
printf '%s\n' '{"case": "FA-98921", "model": "m", "source": "def solve(b, t):\n    return 0\n"}' > p.jsonl
expect_status 2 "$FAILMAP" grade p.jsonl --out g --timeout 1 --timeout 2
[ "$err" = "failmap: error: --timeout: given 2 times; it takes one value
Run 'failmap grade --help' for usage." ] || fail "--timeout twice: $err"
[ ! -e g ] || fail "a refused grade wrote its folder"
expect_status 2 "$FAILMAP" reference FA-98921 FA-58566
[ "$err" = "failmap: error: 'reference' does not take the argument 'FA-58566'
Run 'failmap reference --help' for usage." ] || fail "reference with two cases: $err"
expect_status 2 "$FAILMAP" reference FA-98921 --format json
[ "$err" = "failmap: error: 'reference' has no option '--format'
Run 'failmap reference --help' for usage." ] || fail "reference --format json: $err"
expect_status 2 "$FAILMAP" reference FA-98921 two three
[ "$err" = "failmap: error: 'reference' does not take the arguments 'two' 'three'
Run 'failmap reference --help' for usage." ] || fail "reference with three words: $err"
expect_status 2 "$FAILMAP" grade merge --out merged
[ "$err" = "failmap: error: missing argument <dirs>: the shard folders, every I of 1..N once
Run 'failmap grade merge --help' for usage." ] || fail "grade merge without folders: $err"
for cmd in grade serve; do
  expect_status 2 "$FAILMAP" $cmd $([ $cmd = grade ] && echo p.jsonl --out g) --sandbox foo
  [ "$err" = "failmap: error: --sandbox: expected bwrap or none, got 'foo'
Run 'failmap $cmd --help' for usage." ] || fail "$cmd --sandbox foo: $err"
done
[ ! -e g ] || fail "a refused grade wrote its folder"
