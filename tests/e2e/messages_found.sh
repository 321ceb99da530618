# Error lines say in failmap's words what they found, and stderr is always valid UTF-8 without a raw
# U+FEFF. Before: listing syntax errors were RapidJSON's ("column 15: Invalid value."), a page with invalid
# UTF-8 named no line, a string cut at 57 bytes printed half a character, a BOM inside a quoted value went
# out raw, `split --input FOLDER` said "read error".
utf8_clean() {
  python3 -c 'import sys; t = open("stderr.txt", "rb").read().decode("utf-8"); sys.exit("\ufeff" in t)' ||
    fail "stderr is not valid UTF-8 or holds a raw U+FEFF: $(od -c stderr.txt | head -5)"
}

# Listings: each syntax error with what was found.
bad() {  # bad NAME LINE-TEXT EXPECTED-ERROR-LINE (after "failmap: error: NAME.jsonl:2: ")
  printf '{"id":"ok","g":"A"}\n%s\n' "$2" > "$1.jsonl"
  expect_status 2 "$FAILMAP" split --input "$1.jsonl" --group-field g --ratios a=0.5,b=0.5 --out "out_$1"
  [ "$err" = "failmap: error: $1.jsonl:2: $3" ] || fail "listing $1 said: $err
expected: failmap: error: $1.jsonl:2: $3"
  utf8_clean
}
nan="which JSON does not have (Python's json.dumps writes it; use null or a string)"
bad nan '{"id":"x","g":NaN}' "column 15: expected a JSON value, found NaN, $nan"
bad inf '{"id":"x","g":Infinity}' "column 15: expected a JSON value, found Infinity, $nan"
bad neginf '{"id":"x","g":-Infinity}' "column 16: expected a JSON value, found -Infinity, $nan"
bad bom $'{"id":"x","g":\xef\xbb\xbf"A"}' "column 15: expected a JSON value, found a UTF-8 byte-order mark (U+FEFF)"
bad word '{"id":"x","g":tru}' 'column 15: expected a JSON value, found "tru}"'
bad name '{id:"x"}' 'column 2: expected a member name in double quotes, found "id:\"x\"}"'
bad colon '{"id" "x"}' 'column 7: expected '"':'"' after the member name, found "\"x\"}"'
bad comma '{"id":"x" "g":"A"}' 'column 11: expected '"','"' or '"'}'"' after a member, found "\"g\":\"A\"}"'
bad elem '{"id":"x","g":["A" "B"]}' 'column 20: expected '"','"' or '"']'"' after an element, found "\"B\"]}"'
bad long '{"id":"x","g":€€€€€€€€€€€€€€€€€€€€}' 'column 15: expected a JSON value, found "€€€€€€"...'
! grep -rq "Invalid value\|Missing a\|Incorrect\|Terminate" . --include=stderr.txt || fail "a RapidJSON message remained"

# split --input FOLDER says it is a folder.
mkdir folder
expect_status 2 "$FAILMAP" split --input folder --group-field g --ratios a=0.5,b=0.5 --out o
[ "$err" = "failmap: error: folder: a folder, not a listing (--input names one JSON Lines file)" ] ||
  fail "split --input FOLDER said: $err"

# A page with invalid UTF-8 names its line and column.
python3 - "$SEED" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
lines[4] = lines[4][:3] + b"\xff" + lines[4][3:]
open("bad.txt", "wb").write(b"\n".join(lines))
PY
expect_status 2 "$FAILMAP" --db p.db import bad.txt
[ "$err" = 'failmap: error: bad.txt:5:4: invalid UTF-8 (the byte "\xff") (nothing was imported)' ] ||
  fail "a page with invalid UTF-8 said: $err"
utf8_clean

# A value quoted in an error is cut at a character boundary, its BOM shown as \ufeff.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["variant"] = "€" * 30
json.dump(c, open("euro.json", "w"), ensure_ascii=False)
c["variant"] = "\ufeff1"
json.dump(c, open("bom.json", "w"), ensure_ascii=False)
PY
expect_status 2 "$FAILMAP" --db c.db import euro.json
[ "$err" = "failmap: error: euro.json: field 'variant': expected an integer, got the string \"€€€€€€€€€€€€€€€€€€€\"... (nothing was imported)" ] ||
  fail "a long string in an error: $err"
utf8_clean
expect_status 2 "$FAILMAP" --db c.db import bom.json
[ "$err" = 'failmap: error: bom.json: field '"'variant'"': expected an integer, got the string "\ufeff1" (nothing was imported)' ] ||
  fail "a BOM inside a string in an error: $err"
utf8_clean
# A file name that is not UTF-8 is shown byte by byte.
printf '{' > $'cut\xff.json'
expect_status 2 "$FAILMAP" --db c.db import $'cut\xff.json'
expect_error_mentions 'cut\xff.json'
utf8_clean
