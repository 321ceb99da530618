# --out naming the current folder is refused: the output is written beside its folder and renamed into place,
# which replaced the current folder and left the shell in a deleted one (before: `grade --out .` in an empty
# folder "succeeded", and `ls` there then listed nothing).
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json"
mkdir here
inode=$(stat -c %i here)
msg="the current folder: the output is written beside it and then moved into its place, which would leave this shell in a deleted folder; name a new or empty folder instead"
# in_here WANT CMD...: runs CMD in the (empty) folder here/, its output kept outside it.
in_here() {
  local want=$1; shift
  set +e
  (cd here && "$@") >stdout.txt 2>stderr.txt
  local got=$?
  set -e
  err=$(cat stderr.txt)
  [ "$got" -eq "$want" ] || fail "'$*' in here/ exited $got, expected $want: $err"
}
in_here 2 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out . --sandbox none --no-record
grep -qxF "failmap: error: .: $msg" stderr.txt || fail "grade --out .: $err"
in_here 2 "$FAILMAP" split --ratios train=0.5,test=0.5 --out "$PWD/here"
grep -qxF "failmap: error: $PWD/here: $msg" stderr.txt || fail "split --out \$PWD: $err"
if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then
  in_here 2 "$FAILMAP" export --format jsonl --out .
  grep -qxF "failmap: error: .: $msg" stderr.txt || fail "export --out .: $err"
fi
[ "$(stat -c %i here)" = "$inode" ] && [ -z "$(ls -A here)" ] || fail "the current folder was replaced or written"
# An empty folder that is not the current one is still written.
mkdir empty
expect_status 0 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out empty --sandbox none --no-record
[ -s empty/results.jsonl ] || fail "grade --out empty wrote no results"
