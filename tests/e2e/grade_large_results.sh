# Every reader of a grading reads what grade writes: a candidate whose values
# are within the documented limits makes results lines of megabytes (one list
# of 400,000 elements: about 8 MB; 600,000 Nones from each of the case's
# seven calls: 4.2 million elements in one observation, past what one value
# may hold), and verify-bundle, grade merge, grade compare and the record's
# own judge accept them (k_max_result_line_bytes, src/encoding/limits.h): a
# recalled grading is not reported as edited, and `failmap verify` matches.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
rows = [("big", "def solve(batch_sizes, target):\n    return [1] * 400000\n"),
        ("nones", "def solve(batch_sizes, target):\n    return [None] * 600000\n"),
        ("correct", "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n")]
with open("p.jsonl", "w") as f:
    for model, src in rows:
        f.write(json.dumps({"case": "FA-98921", "model": model, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade p.jsonl --out g1
python3 - g1/results.jsonl <<'PY'
import json, sys
lines = open(sys.argv[1], "rb").read().splitlines()
assert len(lines[0]) > 1 << 20 and len(lines[1]) > 1 << 20, [len(l) for l in lines]
r = [json.loads(l) for l in lines]
assert [x["verdict"] for x in r] == ["unresolved", "unresolved", "resolved"], [x["verdict"] for x in r]
assert sum(len(o["actual"]) for o in json.loads(r[1]["observation"])["observations"]) == 7 * 600000
PY
# Recalled from the record: judged again and accepted, the same bytes, nothing refused.
expect_status 0 "$FAILMAP" grade p.jsonl --out g2
[ -z "$err" ] || fail "the second grading warned: $err"
cmp g1/results.jsonl g2/results.jsonl || fail "the recalled grading differs"
python3 -c 'import json,sys; n=json.load(open(sys.argv[1])); assert n["recalled_lines"] == [1, 2, 3] and n["refused_records"] == [], n' g2/record.json ||
  fail "record.json: $(cat g2/record.json)"
expect_status 0 "$FAILMAP" verify
expect_status 0 "$FAILMAP" verify-bundle g1
for i in 1 2; do expect_status 0 "$FAILMAP" grade p.jsonl --shard "$i/2" --out "s$i" --no-record; done
expect_status 0 "$FAILMAP" grade merge s1 s2 --out merged
cmp g1/results.jsonl merged/results.jsonl || fail "the merged shards differ"
expect_status 0 "$FAILMAP" grade compare g1 --models big,correct
