# A binding edited with sqlite3 to a float text a double cannot hold
# (1.0000000000000000001 reads as 1.0) breaks the rule import applies to a
# case file (params.N must be an integer): every command that reads the case
# row refuses it with the same one error naming the archive, case and field —
# exit 2, nothing written — and verify reports it as the case's one
# "unreadable" finding (exit 1). Before, run recorded runs for it, show
# printed N = 1.0 and export wrote {"N":1.0}: the text silently rounded; and
# run --all --no-record, which does not evaluate the binding, ran the case.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null 2>&1
cp "$FAILMAP_DB" clean.db
why="field params.N: expected an integer (the fixture templates of gradient-accumulation-weighting use N as a size or count), got a value of Python type float"

# Import refuses the same value in a case file: the rule being applied.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
text = json.dumps(json.load(open(sys.argv[1])))
assert text.count('"params": {"N": 1}') == 1
open("float.json", "w").write(text.replace('"params": {"N": 1}', '"params": {"N": 1.0000000000000000001}'))
PY
rm -f i.db
expect_status 2 "$FAILMAP" --db i.db import float.json
[ "$err" = "failmap: error: float.json: field 'params.N': expected an integer (the fixture templates of gradient-accumulation-weighting use N as a size or count), got a value of Python type float (nothing was imported)" ] ||
  fail "import: $err"

for value in 1.0000000000000000001 1.0; do
  rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
  sqlite3 t.db "UPDATE cases SET params = '{\"N\": $value}' WHERE id = 'FA-98921'"
  before=$(archive_state t.db)
  # Every command that stops: exactly this error, nothing on stdout, exit 2.
  refused() {
    expect_status 2 "$FAILMAP" --db t.db "$@"
    [ "$err" = "failmap: error: t.db: case FA-98921, $why" ] || fail "$* (N = $value): $err"
    # (run --all streams the cases before it, FA-98921 being the last by id.)
    if [ "$1" = run ] && [ "$2" = --all ]; then
      ! grep -q FA-98921 stdout.txt || fail "run --all (N = $value) printed FA-98921: $out"
    else
      [ -z "$out" ] || fail "$* (N = $value) printed: $out"
    fi
    [ "$(archive_state t.db)" = "$before" ] || fail "$* (N = $value) changed the archive"
  }
  refused run FA-98921
  refused run FA-98921 --no-record
  refused run --all
  refused run --all --no-record
  refused run --all --no-record --jobs 2
  refused show FA-98921
  refused show FA-98921 --json
  refused reference FA-98921 --strategy broken
  refused digest regenerate
  refused digest regenerate FA-98921
  refused export --format jsonl --out bundle
  refused export --format jsonl --out bundle FA-98921
  refused export --format pages --out pages
  refused split --ratios train=0.5,test=0.5 --out split
  for d in bundle pages split; do [ ! -e $d ] || fail "a refused command left $d"; done
  # verify: the one finding, the other shipped cases still verified.
  for args in "" "--jobs 2" "FA-98921"; do
    expect_status 1 "$FAILMAP" --db t.db verify $args
    [ -z "$err" ] || fail "verify $args printed an error: $err"
    n=$SHIPPED runs=$(((SHIPPED - 1) * 3))
    [ "$args" = FA-98921 ] && n=1 runs=0
    [ "$out" = "FA-98921  -  unreadable: t.db: case FA-98921, $why
verified $n case(s) and $runs replayed run(s): 1 mismatch(es)" ] || fail "verify $args (N = $value): $out"
  done
  # list --json, whose numbers could not hold it (it printed {"N":1.0}),
  # refuses it as show does, and so does list (it printed the stored text,
  # alone of all commands).
  refused list
  refused list --json
  [ "$(archive_state t.db)" = "$before" ] || fail "N = $value: the archive changed"
done

# Below the minimum, the same: run --all --no-record names the binding rule.
for args in "run --all --no-record" "run --all" "run FA-98921 --no-record"; do
  rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
  sqlite3 t.db "UPDATE cases SET params = '{\"N\": 0}' WHERE id = 'FA-98921'"
  expect_status 2 "$FAILMAP" --db t.db $args
  [ "$err" = "failmap: error: t.db: case FA-98921, field params.N: 0 is outside the domain of gradient-accumulation-weighting: N must be an integer >= 1" ] ||
    fail "$args (N = 0): $err"
done

# A binding of the wrong parameters: the error says which were found.
for params in '{}' '{"N": 1, "M": 2}'; do
  rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
  sqlite3 t.db "UPDATE cases SET params = '$params' WHERE id = 'FA-98921'"
  expect_status 2 "$FAILMAP" --db t.db run --all --no-record
  found="0 (none)"; [ "$params" = '{}' ] || found="2 (N, M)"
  [ "$err" = "failmap: error: t.db: case FA-98921, field params: mechanism gradient-accumulation-weighting binds 1 parameter(s) (N), got $found" ] ||
    fail "params $params: $err"
done
