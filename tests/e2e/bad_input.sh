# Bad input: one clear line naming the file/field, exit status 2, archive unchanged.
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
before=$(archive_state)

expect_status 2 "$FAILMAP" run FA-00000 --strategy broken
expect_error_mentions "unknown case 'FA-00000'"
expect_status 2 "$FAILMAP" run FA-98921 --strategy fixed
expect_error_mentions "unknown strategy 'fixed'"
expect_status 2 "$FAILMAP" reference FA-98921 --strategy nope
# reference: the case is looked up before --strategy is asked for; both problems, the case first (it said
# only "--strategy is required" of an unknown case).
db=$(readlink -f "$FAILMAP_DB")
expect_status 2 "$FAILMAP" reference NOPE
[ "$err" = "failmap: error: unknown case 'NOPE' in $db (see \`failmap list\`)
failmap: error: --strategy is required (broken, unsuccessful or repaired)" ] || fail "reference NOPE said: $err"
expect_status 2 "$FAILMAP" reference FA-98921
[ "$err" = "failmap: error: --strategy is required (broken, unsuccessful or repaired)" ] || fail "reference FA-98921 said: $err"
expect_status 2 "$FAILMAP" reference NOPE --strategy nope
[ "$err" = "failmap: error: unknown case 'NOPE' in $db (see \`failmap list\`)
failmap: error: unknown strategy 'nope' (expected broken, unsuccessful or repaired)" ] || fail "reference NOPE --strategy nope said: $err"
[ -z "$out" ] || fail "a refused reference printed: $out"
expect_status 2 "$FAILMAP" --db missing.db list
expect_error_mentions "missing.db: no archive here"
[ ! -e missing.db ] || fail "a read created the archive"

printf 'this is not a database, just text padding padding padding padding padding padding padding padding padding padding' > corrupt.db
expect_status 2 "$FAILMAP" --db corrupt.db list
expect_error_mentions "corrupt.db"

# A case file that fails the schema: names the file and the field.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["variant"] = "one"
json.dump(c, open("bad_variant.json", "w"))
c = json.load(open(sys.argv[1])); c["id"] = "FA-2"; c["tier"] = "public"
json.dump(c, open("bad_tier.json", "w"))
c = json.load(open(sys.argv[1])); c["id"] = "FA-3"; c["params"] = {"N": 9223372036854775807}
json.dump(c, open("overflow.json", "w"))
c = json.load(open(sys.argv[1])); c["id"] = "../evil"
json.dump(c, open("bad_id.json", "w"))
c = json.load(open(sys.argv[1])); c["id"] = "FA-4"; c["fixtures"][0]["expected"] = 4
json.dump(c, open("bad_fixture.json", "w"))
PY
expect_status 2 "$FAILMAP" import bad_variant.json
expect_error_mentions "bad_variant.json: field 'variant': expected an integer, got the string \"one\" (nothing was imported)"
expect_status 2 "$FAILMAP" import bad_tier.json
expect_error_mentions "bad_tier.json: field 'tier': expected \"open\" or \"member\", got the string \"public\" (nothing was imported)"
# Schema problems say what was expected and what was found, one line each,
# naming the field (not the wrappers around it, not the schema library's words).
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["fixtures"][0]["label"] = 5
json.dump(c, open("label_type.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); c["colour"] = "red"
json.dump(c, open("unknown_field.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); del c["title"]
json.dump(c, open("missing_title.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); c["format"] = "failmap-case\u0007" + "x" * 100
json.dump(c, open("long_format.json", "w"), indent=2)
PY
# (A long string is shown as its first 57 bytes, closed, then "..." outside the quotes: encoding/text.h
# quote_excerpt; it was the JSON text cut at 57 bytes, which could end inside a character.)
# A line break in prose: no page could show it (export --format pages would
# then fail for the whole archive), so it is refused here. A binding below
# the parameter's minimum or not an integer (N = 1.5): one line naming the
# cause, not one per fixture (it was 12).
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["id"] = "FA-7"; c["title"] = "A\nB"
json.dump(c, open("title_newline.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); c["id"] = "FA-8"; c["scope"] = "x\r\ny"
json.dump(c, open("scope_crlf.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); c["id"] = "FA-9"; c["params"] = {"N": 0}
json.dump(c, open("n_zero.json", "w"), indent=2)
c = json.load(open(sys.argv[1])); c["id"] = "FA-10"; c["params"] = {"N": 1.5}
json.dump(c, open("n_float.json", "w"), indent=2)
PY
for t in "title_newline.json: field 'title': holds a line break (\n or \r); every prose field is one line of the published page" \
         "scope_crlf.json: field 'scope': holds a line break (\n or \r); every prose field is one line of the published page" \
         "n_zero.json: field 'params.N': 0 is outside the domain of gradient-accumulation-weighting: N must be an integer >= 1" \
         "n_float.json: field 'params.N': expected an integer (the fixture templates of gradient-accumulation-weighting use N as a size or count), got a value of Python type float"; do
  expect_status 2 "$FAILMAP" import "${t%%:*}"
  [ "$(cat stderr.txt)" = "failmap: error: $t (nothing was imported)" ] || fail "expected: $t; got: $(cat stderr.txt)"
done
for t in "label_type.json: field 'fixtures[0].label': expected a string, got the number 5" \
         "unknown_field.json: field 'colour': not a field of a failmap case (schema/case.schema.json lists them)" \
         "missing_title.json: field 'title': missing: a required field of a failmap case" \
         "long_format.json: field 'format': expected \"failmap-case\", got the string \"failmap-case\\u0007xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..."; do
  expect_status 2 "$FAILMAP" import "${t%%:*}"
  [ "$(cat stderr.txt)" = "failmap: error: $t (nothing was imported)" ] || fail "expected: $t; got: $(cat stderr.txt)"
done
expect_status 2 "$FAILMAP" import overflow.json
expect_error_mentions "integer overflow"
expect_error_mentions "overflow.json"
expect_status 2 "$FAILMAP" import bad_id.json
expect_error_mentions "bad_id.json: field 'id': expected 1 to 64 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-' (a case id becomes a file name on export and a command-line argument: no '/', '..' or NUL)"
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["id"] = "FA-5"; c["variant"] = 0
json.dump(c, open("variant_zero.json", "w"))
c = json.load(open(sys.argv[1])); c["id"] = "FA-6"; c["mechanism"] = "Gradient_Accumulation"
json.dump(c, open("bad_mechanism.json", "w"))
PY
expect_status 2 "$FAILMAP" import variant_zero.json
grep -q "variant_zero.json: field 'variant': .*greater than or equal to 1, got the number 0 (nothing was imported)$" stderr.txt ||
  fail "variant bound: $(cat stderr.txt)"
[ "$(wc -l < stderr.txt)" -eq 1 ] || fail "one problem, more than one line: $(cat stderr.txt)"
expect_status 2 "$FAILMAP" import bad_mechanism.json
expect_error_mentions "bad_mechanism.json: field 'mechanism': expected lower-case words of a-z 0-9 joined by single '-'"
expect_status 2 "$FAILMAP" import bad_fixture.json
expect_error_mentions "field 'fixtures[0].expected'"
# Validate everything, then fail once: a good file beside a bad one imports nothing.
mkdir mixed && cp "$SRC/cases/FA-98921.json" mixed/ && cp bad_tier.json bad_variant.json mixed/
expect_status 2 "$FAILMAP" import mixed
expect_error_mentions "bad_tier.json"
expect_error_mentions "bad_variant.json"
printf '{"id": "x", "id": "y"}' > dup.json
expect_status 2 "$FAILMAP" import dup.json
expect_error_mentions "duplicate key \"id\""
printf '{"a": [1, 2' > truncated.json
expect_status 2 "$FAILMAP" import truncated.json
expect_error_mentions "truncated.json:1:"
printf '{"a": NaN}' > nan.json
expect_status 2 "$FAILMAP" import nan.json
expect_error_mentions "nan.json:1:"
printf '{"a": 99999999999999999999}' > huge.json
expect_status 2 "$FAILMAP" import huge.json
expect_error_mentions "exceeds int64"
printf '{"a": "\xff"}' > utf8.json
expect_status 2 "$FAILMAP" import utf8.json
expect_error_mentions "invalid UTF-8"

[ "$(archive_state)" = "$before" ] || fail "a refused command changed the archive"

# Messages the trial found misleading: a range beyond int64 names it; a
# bundle folder without its manifest says so; a case named twice to verify
# is verified once.
expect_status 2 "$FAILMAP" --db range.db instantiate warmup-off-by-one --param N=1..99999999999999999999
[ "$(cat stderr.txt)" = "failmap: error: --param: '99999999999999999999' is beyond the range of a 64-bit integer (at most 9223372036854775807)" ] ||
  fail "range beyond int64: $(cat stderr.txt)"
[ ! -e range.db ] || fail "a refused instantiate created the archive"
mkdir nomanifest && printf '{}\n' > nomanifest/cases.jsonl && sha256sum nomanifest/cases.jsonl > nomanifest/SHA256SUMS
expect_status 2 "$FAILMAP" import nomanifest
expect_error_mentions "nomanifest: manifest.json: missing (the folder holds SHA256SUMS and cases.jsonl, a bundle without its manifest)"
expect_status 0 "$FAILMAP" verify FA-98921 FA-98921
[ "$out" = "verified 1 case(s) and 0 replayed run(s): everything matches" ] || fail "verify A A: $out"
