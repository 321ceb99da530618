# A folder given where a file is expected is named as such ("a folder, not a file"), not as the bare "read error"
# the first read used to fail with; grade, which reads its predictions twice, names a pipe such as /dev/stdin
# (before: "holds no prediction", because the first pass had drained it).
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
mkdir folder
expect_status 2 "$FAILMAP" grade folder --out graded --sandbox none
expect_error_mentions "folder: a folder, not a regular file (grade reads the predictions twice: a check of every line, then grading)"
set +e
cat "$SRC/tests/data/predictions/demo.jsonl" | "$FAILMAP" grade /dev/stdin --out graded --sandbox none >stdout.txt 2>stderr.txt
got=$?
set -e
[ "$got" -eq 2 ] || fail "grade /dev/stdin from a pipe exited $got"
expect_error_mentions "/dev/stdin: a pipe, not a regular file (grade reads the predictions twice"
[ ! -e graded ] || fail "grade wrote graded/ for refused input"
if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then  # the open build exports nothing
  expect_status 2 "$FAILMAP" export --format tasks --out tasks --prompt-template folder
  expect_error_mentions "folder: a folder, not a file"
  expect_status 0 "$FAILMAP" -q export --format jsonl --out bundle
  expect_status 2 "$FAILMAP" verify-bundle bundle --pubkey folder
  expect_error_mentions "folder: a folder, not a file"
  expect_status 2 "$FAILMAP" export --format jsonl --out signed --sign folder
  expect_error_mentions "folder: a folder, not a file"
fi
