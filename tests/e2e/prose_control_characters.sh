# A page export refuses a case whose prose holds a control character or a bidirectional control: a page file is
# read with cat and head, so an ESC sequence in a title would reach the terminal of whoever reads the page (list,
# show and the site escape prose; a page is the prose's bytes). The terminal escaping of list and show also shows
# the bidirectional controls (U+202E as \u202e); grade refuses a model name holding one, and its error shows it
# escaped.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for name, field, text in (("esc", "title", "esc \u001b[2J red"), ("bel", "summary", "title \u0007 bell"),
                          ("c1", "scope", "c1 \u009b here"), ("rlo", "title", "abc \u202e cba"), ("tab", "title", "a\tb"),
                          ("nul", "summary", "a \u0000 b")):
    d = dict(c); d["id"] = name.upper() + "-1"; d[field] = text
    json.dump(d, open(name + ".json", "w"))
PY
expect_status 0 "$FAILMAP" -q import esc.json bel.json c1.json rlo.json tab.json nul.json
if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then  # the open build exports nothing
  expect_status 2 "$FAILMAP" export --format pages --out pages ESC-1
  [ "$err" = "failmap: error: case ESC-1, field 'title': holds U+001B, a control character, which a page would carry raw to its reader's terminal (\`failmap show ESC-1\` shows it escaped; edit the case and import it with --replace)" ] ||
    fail "export ESC-1: $err"
  expect_status 2 "$FAILMAP" export --format pages --out pages BEL-1
  expect_error_mentions "case BEL-1, field 'summary': holds U+0007, a control character"
  expect_status 2 "$FAILMAP" export --format pages --out pages C1-1
  expect_error_mentions "case C1-1, field 'scope': holds U+009B, a control character"
  expect_status 2 "$FAILMAP" export --format pages --out pages RLO-1
  expect_error_mentions "case RLO-1, field 'title': holds U+202E, a bidirectional control, which would reorder what a reader of the page sees"
  expect_status 2 "$FAILMAP" export --format pages --out pages NUL-1
  expect_error_mentions "case NUL-1, field 'summary': holds U+0000, a control character"
  [ ! -e pages ] || fail "a refused export wrote pages/"
  # A tab is printable text.
  expect_status 0 "$FAILMAP" -q export --format pages --out pages TAB-1
fi
# list and show escape U+202E.
expect_status 0 "$FAILMAP" show RLO-1
grep -qF 'abc \u202e cba' stdout.txt || fail "show RLO-1: $out"
if grep -q $'\xe2\x80\xae' stdout.txt; then fail "show printed U+202E raw"; fi
# A model name with U+202E is refused (a name shows every character it holds), and the error shows it escaped.
python3 - <<'PY'
import json
src = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
open("p.jsonl", "w").write(json.dumps({"case": "ESC-1", "model": "evil\u202emodel", "source": src}) + "\n")
PY
expect_status 2 "$FAILMAP" grade p.jsonl --out graded --sandbox none --no-record
expect_error_mentions "p.jsonl:1: field 'model': U+202E RIGHT-TO-LEFT OVERRIDE"
expect_error_mentions '"evil\u202emodel"'
if grep -q $'\xe2\x80\xae' stderr.txt; then fail "grade printed U+202E raw"; fi
[ ! -e graded ] || fail "a refused predictions file left graded/"
