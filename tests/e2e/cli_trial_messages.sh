# Each message names what happened, not the parser's guess at it:
# `grade A B` names B as one argument too many, and lists the subcommands it is not;
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
cp "$SRC/tests/data/predictions/demo.jsonl" a.jsonl
cp a.jsonl b.jsonl
expect_status 2 "$FAILMAP" grade a.jsonl b.jsonl --out graded
[ "$(head -1 stderr.txt)" = "failmap: error: 'failmap grade' takes one predictions argument: 'b.jsonl' is one too many (nor is it a subcommand: merge, compare, forget)" ] ||
  fail "grade a b: $err"
# a subcommand's misspelling is still named as such;
expect_status 2 "$FAILMAP" digest regenerat
expect_error_mentions "unknown subcommand 'regenerat' of 'failmap digest'"
# `verify-bundle FILE` says the path is a file, not that it is missing;
expect_status 2 "$FAILMAP" verify-bundle a.jsonl
[ "$err" = "failmap: error: a.jsonl: not a bundle folder (a file)" ] || fail "verify-bundle FILE: $err"
# grade into a dangling link names the grading it could not move.
ln -s nowhere/at/all dangling
expect_status 2 "$FAILMAP" grade a.jsonl --out dangling --sandbox none --no-record
expect_error_mentions "cannot move the grading into place"
# `failmap nosuch --help` is an unknown command (exit 2), not a request for the top-level help.
expect_status 2 "$FAILMAP" nosuch --help
[ "$(head -1 stderr.txt)" = "failmap: error: unknown command 'nosuch'" ] || fail "nosuch --help: $err"
expect_status 2 "$FAILMAP" --db x.db glossary -h
expect_error_mentions "unknown command 'glossary'"
# ... while help of a command, and the top-level help, still print and exit 0.
expect_status 0 "$FAILMAP" grade --help
printf '%s\n' "$out" | grep -q -- "--held-out" || fail "grade --help: $out"
expect_status 0 "$FAILMAP" --db x.db --help
printf '%s\n' "$out" | grep -q "^Subcommands:" || fail "failmap --help: $out"
printf '%s\n' "$out" | grep -qF "2 usage or input error, 3 the archive is busy" || fail "failmap --help lacks exit status 3: $out"
expect_status 0 "$FAILMAP" --version
[ ! -e x.db ] || fail "a help request created x.db"
