# grade refuses a predictions file that holds no prediction, and prints the problems of a bad one in the order
# of its lines, then of the fields on each line. Before: an empty file graded 0 predictions with exit 0 and wrote
# its folder; a case the archive lacks was reported after the problems of every later line, and the problems of
# one line came as source, model, sample whatever their order on the line.
"$FAILMAP" -q import "$SRC/cases/FA-98921.json"
before=$(archive_state)

# Empty: 0 bytes, or only a byte-order mark (skipped at the start of any file). Blank lines are refused as such.
: > empty.jsonl
printf '\xef\xbb\xbf' > bom.jsonl
for f in empty bom; do
  expect_status 2 "$FAILMAP" grade $f.jsonl --out g_$f
  [ "$err" = "failmap: error: $f.jsonl: holds no prediction (expected one JSON object per line: {\"case\", \"model\", \"sample\", \"source\"}, schema/GRADING.md)" ] ||
    fail "grade $f.jsonl said: $err"
  [ -z "$out" ] || fail "grade $f.jsonl printed: $out"
  [ ! -e g_$f ] || fail "grade $f.jsonl wrote its folder"
done
# With a shard, the same (a file with predictions may give a shard none; an empty file is refused anyway).
expect_status 2 "$FAILMAP" grade empty.jsonl --shard 1/2 --out g_shard
expect_error_mentions "empty.jsonl: holds no prediction"
printf '\n\n' > blank.jsonl
expect_status 2 "$FAILMAP" grade blank.jsonl --out g_blank
expect_error_mentions "blank.jsonl:1: empty line (one JSON object per line)"
[ ! -e g_blank ] || fail "grade blank.jsonl wrote its folder"

# Problems in line order, then in the order of the fields on the line.
printf '%s\n' '{"case":"FA-98921","model":"m","source":"x"}' \
  '{"case":"NOPE-1","model":"m","source":"x"}' \
  '{"sample":-1,"source":3,"case":"FA-98921","model":""}' \
  '{"case":"FA-98921","model":"m","source":"x"}' \
  '{"zz":1,"case":"FA-98921","model":"m","sample":1,"source":"y","aa":2}' > bad.jsonl
expect_status 2 "$FAILMAP" grade bad.jsonl --out g_bad
db=$(readlink -f "$FAILMAP_DB")
[ "$err" = "failmap: error: bad.jsonl:2: field 'case': no case NOPE-1 in $db (\`failmap list\` shows its cases)
failmap: error: bad.jsonl:3: field 'sample': expected an integer from 0 to 2147483647, got the number -1
failmap: error: bad.jsonl:3: field 'source': expected a string, got the number 3
failmap: error: bad.jsonl:3: field 'model': expected a model name of 1 to 200 bytes, got the string \"\"
failmap: error: bad.jsonl:4: field 'sample': case FA-98921, model \"m\", sample 0 is given twice (first on line 1)
failmap: error: bad.jsonl:5: field 'zz': not a prediction field (case, model, sample, source, completion, meta)
failmap: error: bad.jsonl:5: field 'aa': not a prediction field (case, model, sample, source, completion, meta)
failmap: error: 7 problem(s) in bad.jsonl; nothing was graded" ] || fail "grade bad.jsonl said: $err"
[ ! -e g_bad ] || fail "a refused grade wrote its folder"
[ "$(archive_state)" = "$before" ] || fail "a refused grade changed the archive"

# grade merge says what is true of a shard folder: missing, not a folder, a file changed since the grading
# wrote it. Before: "nosuch/SHA256SUMS: cannot open" for a missing folder and "(file changed after the split)".
mkdir shard && echo '{}' > shard/summary.json && (cd shard && sha256sum summary.json > SHA256SUMS)
expect_status 2 "$FAILMAP" grade merge nosuch shard --out merged
[ "$err" = "failmap: error: nosuch: no such folder" ] || fail "merge of a missing folder said: $err"
touch plain
expect_status 2 "$FAILMAP" grade merge plain shard --out merged
[ "$err" = "failmap: error: plain: not a folder" ] || fail "merge of a file said: $err"
echo '{"x": 1}' > shard/summary.json
expect_status 1 "$FAILMAP" grade merge shard --out merged
[ "$err" = "failmap: error: shard/SHA256SUMS:1: 'summary.json': SHA-256 does not match (file changed since the grading wrote it): expected $(cut -c1-64 shard/SHA256SUMS), found $(sha256sum shard/summary.json | cut -c1-64)" ] ||
  fail "merge of a changed shard said: $err"
# grade --split names a missing split folder as such too.
expect_status 2 "$FAILMAP" grade bad.jsonl --split nosuch --split-name test --out g_split
[ "$err" = "failmap: error: nosuch: no such folder" ] || fail "grade --split nosuch said: $err"
[ ! -e merged ] && [ ! -e g_split ] || fail "a refused merge or grade wrote its folder"

# An --out whose parent folder does not exist is refused, by grade as by export and split (one rule for
# every --out: tests/e2e/staging_missing_parent.sh).
"$FAILMAP" -q import "$SRC/cases/FA-11135.json"
expect_status 2 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --no-record --out new/c/graded
expect_error_mentions "new/c/graded: no such folder new/c"
[ ! -e new ] || fail "grade made the missing parent of --out: $(find new)"

# Empty and padded values are refused, never read as "no shard" or "unsigned" (before: --shard "" graded
# everything, --shard " 1/3" was taken as 1/3, export --sign "" wrote an unsigned bundle; all exit 0).
for v in "" " 1/3" "+1/3" "1/ 3" "1/3 "; do
  expect_status 2 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --no-record --out g_shard --shard "$v"
  [ "$err" = "failmap: error: --shard: expected I/N with 1 <= I <= N <= 4096 (e.g. 2/4), got '$v'
Run 'failmap grade --help' for usage." ] || fail "--shard '$v': $err"
  [ ! -e g_shard ] || fail "a refused grade wrote its folder"
done
expect_status 2 "$FAILMAP" export --sign "" --out signed_empty
[ "$err" = "failmap: error: --sign: expected the path of an Ed25519 private key (PEM), got an empty value
Run 'failmap export --help' for usage." ] || fail "export --sign '': $err"
[ ! -e signed_empty ] || fail "a refused export wrote its folder"
