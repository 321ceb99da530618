# JSON syntax errors of every reader (predictions, case files, bundles, stored values) say in failmap's
# words where (FILE:LINE:COL), what was expected and what was found. Before: nlohmann's parser wording
# ("syntax error while parsing object key - unexpected end of input; expected string literal" for a NUL byte
# inside a predictions line), and a NUL byte after a whole value ended the text: a case file with
# "<NUL>junk" after its object was imported, the rest dropped unread.
"$FAILMAP" -q import "$SRC/cases/FA-98921.json"
before=$(archive_state)
nul="a NUL byte (U+0000); JSON text cannot hold one raw"

# grade's predictions: a NUL byte inside a line, after a line's object, and a line cut short.
printf '%s\n' '{"case": "FA-98921", "model": "m", "sample": 0, "source": "def solve(): pass"}' > preds.jsonl
printf '{"case": "FA-98921",\0 "model": "m"}\n' >> preds.jsonl
printf '{"case": "FA-98921", "model": "m", "sample": 1, "source": "x"}\0junk\n' >> preds.jsonl
printf '{"case": "FA-98921", "model": \n' >> preds.jsonl
printf '{"case": "FA-98921" "model": "m"}\n' >> preds.jsonl
printf '{"case" "FA-98921"}\n' >> preds.jsonl
expect_status 2 "$FAILMAP" grade preds.jsonl --out graded
[ "$err" = "failmap: error: preds.jsonl:2:21: expected a member name in double quotes, found $nul
failmap: error: preds.jsonl:3:63: expected the end of the text after the JSON value, found $nul
failmap: error: preds.jsonl:4:31: expected a JSON value, found the end of the text
failmap: error: preds.jsonl:5:21: expected ',' or '}' after a member, found \"\\\"model\\\": \\\"m\\\"}\"
failmap: error: preds.jsonl:6:9: expected ':' after the member name, found \"\\\"FA-98921\\\"}\"
failmap: error: 5 problem(s) in preds.jsonl; nothing was graded" ] || fail "grade said: $err"
[ ! -e graded ] || fail "a refused grading wrote its folder"

# A case file: what follows a NUL byte after its object is refused, never dropped.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import sys
text = open(sys.argv[1], "rb").read().rstrip(b"\n")
lines = text.count(b"\n") + 1
last = len(text.rsplit(b"\n", 1)[-1])
open("case.json", "wb").write(text + b"\0{\"id\": \"FA-00000\"}\n")
open("where.txt", "w").write(f"{lines}:{last + 1}")
PY
expect_status 2 "$FAILMAP" import --replace case.json
[ "$err" = "failmap: error: case.json:$(cat where.txt): expected the end of the text after the JSON value, found $nul (nothing was imported)" ] ||
  fail "a case file with text after a NUL byte: $err"
# A string left open (a file cut short) is named where it starts, with its first bytes.
printf '{"id": "FA-98921", "title": "The final short' > cut.json
expect_status 2 "$FAILMAP" import cut.json
[ "$err" = "failmap: error: cut.json:1:29: a string that is not closed before the end of the text (it starts \"The final short\") (nothing was imported)" ] ||
  fail "a cut case file: $err"
[ "$(archive_state)" = "$before" ] || fail "a refused input changed the archive"

# A bundle line: verify-bundle and import word it alike (the open build exports no archive: it holds
# no repair to check a case against).
[ "${FAILMAP_REPAIRS:-1}" = 1 ] || exit 0
"$FAILMAP" -q export --out bundle FA-98921
python3 - bundle/cases.jsonl <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
open(p, "w").write(s.replace('"variant":1,', '"variant":1,,', 1))
PY
resum_bundle bundle
col=$(python3 -c 'import sys; print(open("bundle/cases.jsonl").readline().index(",,") + 2)')
expect_status 1 "$FAILMAP" verify-bundle bundle
printf '%s\n' "$out" | grep -qxF "bundle/cases.jsonl:1:$col: expected a member name in double quotes, found \",\\\"title\\\":\\\"The final \"..." ||
  fail "verify-bundle said: $out"
expect_status 2 "$FAILMAP" import bundle
expect_error_mentions "bundle/cases.jsonl:1:$col: expected a member name in double quotes, found"

