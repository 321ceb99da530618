# `split check DIR` reads every DIR/*.jsonl or says why not: a dangling link, a FIFO or a folder named
# *.jsonl is an error naming it (exit 2), never a skipped file under a "clean" verdict (before: all three
# were skipped and the folder's other claims audited as if they were all).
printf '{"id":"a","g":"A"}\n{"id":"b","g":"A"}\n{"id":"c","g":"C"}\n' > items.jsonl
mkdir base && printf '{"id":"a"}\n' > base/train.jsonl
expect_status 0 "$FAILMAP" split check base --input items.jsonl --group-field g
[ "$out" = "clean: 1 line(s), 1 of 3 item(s) in 2 unit(s)" ] || fail "split check of the plain folder: $out"
# special NAME WHAT MAKE...: a copy of base/ plus test.jsonl made by MAKE (run inside the folder).
special() {
  local name=$1 what=$2; shift 2
  rm -rf "$name" && cp -r base "$name"
  (cd "$name" && "$@")
  expect_status 2 "$FAILMAP" split check "$name" --input items.jsonl --group-field g
  [ "$err" = "failmap: error: $name/test.jsonl: $what, not a file: split check reads every *.jsonl of the folder (move it away, or rename it)" ] ||
    fail "split check with test.jsonl as $what said: $err"
  [ -z "$out" ] || fail "split check with test.jsonl as $what printed a verdict: $out"
  expect_status 2 "$FAILMAP" split check "$name" --input items.jsonl --group-field g --json
  [ -z "$out" ] || fail "split check --json with test.jsonl as $what printed: $out"
}
special dangling "a link to nothing (dangling)" ln -s nowhere.jsonl test.jsonl
special fifo "a FIFO (named pipe)" mkfifo test.jsonl
special folder "a folder" mkdir test.jsonl
# A link to a claim file is read through (as the file it names): here it leaks unit g="A".
rm -rf linked && cp -r base linked && printf '{"id":"b"}\n' > b.jsonl && ln -s ../b.jsonl linked/test.jsonl
expect_status 1 "$FAILMAP" split check linked --input items.jsonl --group-field g
echo "$out" | grep -qx 'LEAK: unit g="A" is in more than one split:' || fail "split check through a link: $out"
# A folder whose name does not end in .jsonl is not a claim file: left alone.
rm -rf other && cp -r base other && mkdir other/notes
expect_status 0 "$FAILMAP" split check other --input items.jsonl --group-field g
