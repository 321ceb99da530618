# failmap split --input: an external JSON Lines listing split group-safe.
# Expected assignments are derived by hand from schema/SPLITS.md.
cat > items.jsonl <<'JSONL'
{"id":"a1","group":"A"}
{"id":"a2","group":"A","note":{"nested":[1,2.5,{"x":null}]}}
{"id":"b1","group":"B","tag":"t1"}
{"id":"c1","group":"C","tag":["t1"]}
{"id":"d1","group":"D"}
{"id":"d2","group":"D","tag":null}
{"id":"d3","group":"D"}
{"id":"e1","group":"E"}
JSONL
# Units: group="D" (3), group="A" (2), group="B" (b1+c1 through tag t1: 2),
# group="E" (1). Halves, targets 4/4: D -> train (tie: first split), the two
# 2-units -> test (deficits 1 vs 4, then 1 vs 2), E -> train (1 vs 0).
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field group --group-field tag \
  --ratios train=0.5,test=0.5 --seed 7 --out half
grep -q "max deviation 0.00 pp" stdout.txt || fail "report: $out"
[ "$(cat half/assignments.jsonl)" = '{"id":"a1","unit":"group=\"A\"","split":"test"}
{"id":"a2","unit":"group=\"A\"","split":"test"}
{"id":"b1","unit":"group=\"B\"","split":"test"}
{"id":"c1","unit":"group=\"B\"","split":"test"}
{"id":"d1","unit":"group=\"D\"","split":"train"}
{"id":"d2","unit":"group=\"D\"","split":"train"}
{"id":"d3","unit":"group=\"D\"","split":"train"}
{"id":"e1","unit":"group=\"E\"","split":"train"}' ] || fail "assignments: $(cat half/assignments.jsonl)"
# The split files hold the listing's own lines.
[ "$(cat half/train.jsonl)" = "$(grep -E '"(d1|d2|d3|e1)"' items.jsonl)" ] || fail "train.jsonl"
(cd half && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not verify"
# --json prints that manifest.json (same members, one line) instead of the report.
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field group --group-field tag \
  --ratios train=0.5,test=0.5 --seed 7 --out half_json --json
python3 -c 'import json, sys; assert json.loads(sys.argv[1]) == json.load(open("half/manifest.json"))' "$out" ||
  fail "split --json is not the manifest: $out"
[ "$(wc -l <stdout.txt)" = 1 ] || fail "split --json printed more than one line"
grep -q '"splits":\[{"name":"train","requested":0.5,"achieved":0.5,"items":4,"units":2}' half/manifest.json ||
  fail "manifest: $(cat half/manifest.json)"

# Folds: D -> fold-1, 2-units -> fold-2 (0 < 3, then 2 < 3), E -> fold-1 (3 < 4).
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field group --group-field tag --folds 2 --out folds
[ "$(grep -c '"fold-1"' folds/assignments.jsonl)" = 4 ] || fail "fold-1 size"
grep -q '{"id":"e1","unit":"group=\\"E\\"","split":"fold-1"}' folds/assignments.jsonl || fail "e1 fold"

# Determinism: same input and seed, same bytes; another seed, another split.
python3 - <<'PY'
import random
rng = random.Random(5)
with open("many.jsonl", "w") as f:
    for i in range(300):
        f.write('{"id":%d,"g":"g%d"}\n' % (i, rng.randrange(60)))
PY
for run in 1 2; do
  expect_status 0 "$FAILMAP" split --input many.jsonl --group-field g --ratios train=0.8,test=0.2 --seed 11 --out s11_$run
done
diff -r s11_1 s11_2 >/dev/null || fail "two runs with one seed differ"
expect_status 0 "$FAILMAP" split --input many.jsonl --group-field g --ratios train=0.8,test=0.2 --seed 12 --out s12
cmp -s s11_1/assignments.jsonl s12/assignments.jsonl && fail "seeds 11 and 12 gave the same assignment"
grep -q '"seed":12' s12/manifest.json || fail "seed not in manifest"
expect_status 0 "$FAILMAP" split --input many.jsonl --group-field g --ratios train=0.8,test=0.2 --stable --out st
grep -q "stable mode gives up balance" stdout.txt || fail "stable report: $out"

# Audit: failmap's own folders are clean; a hand-made one that puts a1 and a2
# on two sides leaks unit group="A" (exit 1, both cases listed).
expect_status 0 "$FAILMAP" split check half --input items.jsonl --group-field group --group-field tag
expect_status 0 "$FAILMAP" split check s12 --input many.jsonl --group-field g
mkdir leak
printf '{"id":"a1"}\n{"id":"b1"}\n' > leak/train.jsonl
printf '{"id":"a2"}\n{"id":"zz"}\n' > leak/test.jsonl
expect_status 1 "$FAILMAP" split check leak --input items.jsonl --group-field group --group-field tag
[ "$out" = 'LEAK: unit group="A" is in more than one split:
  test: "a2"
  train: "a1"
UNKNOWN: id "zz" is no item of the listing (test.jsonl:2)
LEAKING: 4 line(s), 3 of 8 item(s) in 4 unit(s)' ] || fail "check output: $out"
expect_status 1 "$FAILMAP" split check leak --input items.jsonl --group-field group --group-field tag --json
[ "$out" = '{"clean":false,"lines":4,"claimed_items":3,"items":8,"units":4,"leaks":[{"kind":"unit","unit":"group=\"A\"","members":[{"split":"test","id":"\"a2\""},{"split":"train","id":"\"a1\""}]}],"unknown_ids":[{"id":"\"zz\"","where":["test.jsonl:2"]}],"duplicates":[]}' ] ||
  fail "check --json: $out"
# A tampered failmap folder fails its SHA256SUMS.
cp -r half tampered && sed -i 's/"test"}/"train"}/' tampered/assignments.jsonl
expect_status 1 "$FAILMAP" split check tampered --input items.jsonl --group-field group --group-field tag
expect_error_mentions "tampered/SHA256SUMS:"
expect_error_mentions "'assignments.jsonl': SHA-256 does not match (file changed after the split): expected"
# ... and, with SHA256SUMS redone after dropping a line, its manifest's files.
cp -r half dropped && sed -i '1d' dropped/assignments.jsonl
(cd dropped && grep -v ' assignments.jsonl$' SHA256SUMS > s && sha256sum assignments.jsonl >> s && sort -k2 s > SHA256SUMS && rm s)
(cd dropped && sha256sum -c --quiet SHA256SUMS) || fail "the test's SHA256SUMS is not redone"
expect_status 1 "$FAILMAP" split check dropped --input items.jsonl --group-field group --group-field tag
expect_error_mentions "dropped/assignments.jsonl: SHA-256 differs from manifest.json's files (file changed after the split)"

# Impossible requests: exit 2 with the reason.
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --group-field tag --folds 5 --out x1
expect_error_mentions "cannot make 5 folds from 4 unit(s)"
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --ratios train=0.8,test=0.1 --out x2
expect_error_mentions "shares sum to 0.9"
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --group-field tag \
  --ratios big=0.999,small=0.001 --out x3
expect_error_mentions "split 'small' can receive no unit"
: > empty.jsonl
expect_status 2 "$FAILMAP" split --input empty.jsonl --group-field group --ratios a=0.5,b=0.5 --out x4
expect_error_mentions "holds no items"
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --ratios a=0.5,b=0.5 --out half
expect_error_mentions "folder is not empty"
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --out x5
expect_error_mentions "exactly one of --ratios"
[ ! -e x1 ] && [ ! -e x2 ] && [ ! -e x3 ] && [ ! -e x4 ] || fail "a refused split wrote a folder"

# Bad listings: one line naming file and line, exit 2.
bad() {  # bad NAME LINE-TEXT EXPECTED-MESSAGE
  printf '{"id":"ok","group":"A"}\n%s\n' "$2" > "$1.jsonl"
  expect_status 2 "$FAILMAP" split --input "$1.jsonl" --group-field group --ratios a=0.5,b=0.5 --out "out_$1"
  expect_error_mentions "$1.jsonl:2: $3"
}
bad syntax '{"id":"x","group":' "column"
bad dupid '{"id":"ok","group":"B"}' 'duplicate id "ok" (first on line 1)'
bad float '{"id":"x","group":1.5}' "field 'group' holds the float 1.5;"
bad huge '{"id":"x","group":99999999999999999999}' "field 'group' holds 99999999999999999999, an integer beyond int64;"
bad bool '{"id":true,"group":"A"}' "field 'id' holds a boolean"
bad noid '{"group":"A"}' 'no "id" field'
bad nogroup '{"id":"x","other":"A"}' "no value in any group field (group)"
bad dupkey '{"id":"x","group":"A","group":"B"}' 'duplicate key "group"'
bad array '[1,2]' "expected an object"
bad nested '{"id":"x","group":[["A"]]}' "field 'group' holds an array within its array"
bad toobig '{"id":"x","group":1e400}' "column 19: field 'group': a number beyond the range of a double (about 1.8e308)"
bad cut '{"id":"x","group":"A"' "column 22: the line ends inside its JSON value (cut short?)"
bad huge '{"id":"x","group":18446744073709551615}' "field 'group' holds 18446744073709551615, an integer beyond int64;"
bad trailing '{"id":"x","group":"A"} x' "column"
# A blank line before another line (one empty last line is ignored, as in bundles: tests/e2e/bom_policy.sh).
printf '{"id":"ok","group":"A"}\n\n{"id":"x","group":"B"}\n' > blank.jsonl
expect_status 2 "$FAILMAP" split --input blank.jsonl --group-field group --ratios a=0.5,b=0.5 --out out_blank
expect_error_mentions "blank.jsonl:2: blank line"
bad spaces '  ' "blank line"
printf '{"id":"x","group":"\xff"}\n' > utf8.jsonl
expect_status 2 "$FAILMAP" split --input utf8.jsonl --group-field group --ratios a=0.5,b=0.5 --out o_utf8
expect_error_mentions "utf8.jsonl:1: "
