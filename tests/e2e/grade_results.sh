# failmap grade on the README's predictions (tests/data/predictions/demo.jsonl):
# verdicts, fail_to_pass/pass_to_pass, same_as and the observation bytes of each
# candidate as schema/GRADING.md defines them; pass@k against Python's own
# arithmetic; results identical for --jobs 1 and 3; four shards merged into the
# bytes of the unsharded run; bad predictions refused with file, line and field.
# The open build grades too (it needs only the fixtures): there a candidate
# that matches the repair is "same_as" nothing, as the build holds no repair.
expect_status 0 "$FAILMAP" import "$SRC/cases/"
PRED="$SRC/tests/data/predictions/demo.jsonl"
expect_status 0 "$FAILMAP" grade "$PRED" --out g1 --jobs 1
[ "$(head -1 stdout.txt)" = "graded 6 prediction(s) into g1" ] || fail "headline: $out"
expect_status 0 "$FAILMAP" grade "$PRED" --out g3 --jobs 3 --json --no-record
diff g1/results.jsonl g3/results.jsonl >/dev/null || fail "results differ between --jobs 1 and 3"
diff g1/summary.json g3/summary.json >/dev/null || fail "summary differs between --jobs 1 and 3"
cmp -s stdout.txt g3/summary.json || fail "--json does not print summary.json"
(cd g1 && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS"

python3 - g1/results.jsonl g1/summary.json "$PRED" <<'PY'
import json, os, sys
repairs = os.environ.get("FAILMAP_REPAIRS", "1") == "1"
r = [json.loads(l) for l in open(sys.argv[1])]
assert [x["sample"] for x in r] == [0, 1, 2, 3, 0, 1] and [x["line"] for x in r] == [1, 2, 3, 4, 5, 6]
# The unsuccessful fix is partial by the definition: one failing check now passes, none that passed fails.
assert [x["verdict"] for x in r] == ["resolved", "partial", "partial", "unresolved", "resolved", "error"], [x["verdict"] for x in r]
# The page's table: the broken strategy fails short final batch, single short, oversized batch, unit batch.
f2p = ["short final batch", "single short", "oversized batch", "unit batch"]
p2p = ["all full batches", "empty", "mixed remainder"]
assert r[0]["fail_to_pass"] == {"success": f2p, "failure": []} and r[0]["pass_to_pass"] == {"success": p2p, "failure": []}
assert r[0]["same_as"] == ("repaired" if repairs else None) and r[0]["error"] is None, r[0]["same_as"]
# The unsuccessful fix proposed again is recognised as such; its observation is the page's table 2.
assert r[1]["same_as"] == "unsuccessful"
assert [o["actual"] for o in json.loads(r[1]["observation"])["observations"]] == [2, 2, 0, 0, 3, 2, 2]
assert r[1]["fail_to_pass"] == {"success": ["oversized batch"], "failure": ["short final batch", "single short", "unit batch"]}
# Partial: three failing checks now pass, none that passed fails.
assert r[2]["fail_to_pass"]["success"] == ["short final batch", "single short", "unit batch"] and r[2]["pass_to_pass"]["failure"] == []
assert r[3]["checks"][0] == {"check": "short final batch", "passed": False, "reached": True,
                             "exception": "NotImplementedError: todo", "refused": None}, r[3]["checks"][0]
assert json.loads(r[3]["observation"])["observations"][0]["actual"] is None
# Floats where ints are expected: Python's == holds, the document shows 3.0.
assert r[4]["verdict"] == "resolved" and '"actual": 3.0, "expected": 3' in r[4]["observation"] and r[4]["same_as"] is None
assert r[5]["error"]["kind"] == "syntax" and r[5]["error"]["message"].startswith("SyntaxError: expected ':'"), r[5]["error"]
import hashlib
preds = [json.loads(l) for l in open(sys.argv[3])]
for x, p in zip(r, preds):
    assert x["observation_sha256"] == hashlib.sha256(x["observation"].encode()).hexdigest()
    assert x["source_sha256"] == hashlib.sha256(p["source"].encode()).hexdigest()
s = json.load(open(sys.argv[2]))
dm, bl = s["models"]["demo-model"], s["models"]["baseline"]
assert (dm["predictions"], dm["resolved"], dm["partial"], dm["unresolved"], dm["errors"]) == (4, 1, 2, 1, 0), dm
assert (bl["predictions"], bl["resolved"], bl["errors"]) == (2, 1, 1), bl
# pass@k over one case with n = 4, c = 1 (demo-model) and n = 2, c = 1 (baseline):
# 1 - C(n-c,k)/C(n,k), by Python's own integers, then as the product form in doubles.
from math import comb
def estimator(n, c, k):
    if n - c < k: return 1.0
    p = 1.0
    for i in range(n - c + 1, n + 1): p *= 1.0 - k / i
    return 1.0 - p
for (n, c, m) in ((4, 1, dm), (2, 1, bl)):
    assert list(m["pass_at_k"]) == [str(k) for k in range(1, n + 1)], m["pass_at_k"]
    for k in range(1, n + 1):
        assert m["pass_at_k"][str(k)] == estimator(n, c, k), (k, m["pass_at_k"])
        assert abs(m["pass_at_k"][str(k)] - (1 - comb(n - c, k) / comb(n, k))) < 1e-15
assert dm["pass_at_k"] == {"1": 0.25, "2": 0.5, "3": 0.75, "4": 1.0}, dm["pass_at_k"]
assert s["predictions"] == 6 and s["shard"] is None and s["sandbox"] == "bwrap"
print("grade results: as computed by hand")
PY

# Recorded gradings: the same sources against unchanged cases are recalled
# (record.json names their lines) and give the same bytes in every listed
# file; a case changed since is graded anew; --no-record neither reads nor
# writes.
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings')" = 6 ] || fail "6 gradings not recorded"
before=$(archive_state)
expect_status 0 "$FAILMAP" grade "$PRED" --out g3b --jobs 3 --no-record
[ "$(archive_state)" = "$before" ] || fail "--no-record wrote to the archive"
[ ! -e g3b/record.json ] || fail "--no-record wrote record.json"
expect_status 0 "$FAILMAP" grade "$PRED" --out again
for f in results.jsonl summary.json SHA256SUMS; do
  cmp -s g1/$f again/$f || fail "$f recalled from the record differs from the graded one"
  cmp -s g3b/$f again/$f || fail "$f recalled from the record differs from the one graded with --no-record"
done
[ "$(cat g1/record.json)" = '{"format":"failmap-grade-record","format_version":1,"recalled_lines":[],"refused_records":[],"recorded":6,"regrade":false}' ] ||
  fail "record.json of the first grading: $(cat g1/record.json)"
[ "$(cat again/record.json)" = '{"format":"failmap-grade-record","format_version":1,"recalled_lines":[1,2,3,4,5,6],"refused_records":[],"recorded":0,"regrade":false}' ] ||
  fail "record.json of the recalled grading: $(cat again/record.json)"
grep -q record.json again/SHA256SUMS && fail "SHA256SUMS lists record.json"
# The same case under another binding is another case digest: graded anew.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = c["title"] + " (edited)"
json.dump(c, open("edited.json", "w"), ensure_ascii=False)
PY
expect_status 0 "$FAILMAP" import edited.json --replace
expect_status 0 "$FAILMAP" grade "$PRED" --out after_edit
python3 -c 'import json; r = json.load(open("after_edit/record.json")); assert r["recalled_lines"] == [] and r["recorded"] == 6, r' ||
  fail "a changed case was served from the record"

# Four shards on "four machines", merged: the bytes of the unsharded run.
python3 - "$PRED" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
more = []
for i in range(40):  # enough predictions that every shard gets some
    more.append({"case": "FA-98921", "model": f"m{i % 3}", "sample": i, "source": f"def solve(batch_sizes, target):\n    return sum(batch_sizes) + {i % 2}\n"})
open("many.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in rows + more))
PY
expect_status 0 "$FAILMAP" grade many.jsonl --out whole --no-record
for i in 1 2 3 4; do expect_status 0 "$FAILMAP" grade many.jsonl --out "s$i" --shard "$i/4" --no-record; done
n=0; for i in 1 2 3 4; do n=$((n + $(wc -l < "s$i/results.jsonl"))); [ -s "s$i/results.jsonl" ] || fail "shard $i is empty"; done
[ "$n" = 46 ] || fail "the shards hold $n lines, not 46"
expect_status 0 "$FAILMAP" grade merge s3 s1 s4 s2 --out merged
diff whole/results.jsonl merged/results.jsonl >/dev/null || fail "merged results differ from the unsharded run"
diff whole/summary.json merged/summary.json >/dev/null || fail "merged summary differs from the unsharded run"
diff whole/SHA256SUMS merged/SHA256SUMS >/dev/null || fail "merged SHA256SUMS differs"
# cpu.jsonl: the shards' lines in the merged order, one per results line; a shard without one gives none.
[ "$(cut -d, -f1 merged/cpu.jsonl)" = "$(seq 1 46 | sed 's/^/{"line":/')" ] || fail "merged cpu.jsonl: $(head -3 merged/cpu.jsonl)"
[ "$(sort merged/cpu.jsonl)" = "$(cat s1/cpu.jsonl s2/cpu.jsonl s3/cpu.jsonl s4/cpu.jsonl | sort)" ] || fail "merged cpu.jsonl is not the shards' lines"
rm s3/cpu.jsonl
expect_status 0 "$FAILMAP" grade merge s1 s2 s3 s4 --out merged-no-s3
[ "$(wc -l < merged-no-s3/cpu.jsonl)" = $((46 - $(wc -l < s3/results.jsonl))) ] || fail "merge without s3/cpu.jsonl"
cmp merged/results.jsonl merged-no-s3/results.jsonl || fail "a missing cpu.jsonl changed the merged results"
printf '{"line":"x"}\n' > s3/cpu.jsonl
expect_status 2 "$FAILMAP" grade merge s1 s2 s3 s4 --out bad-cpu
expect_error_mentions "s3/cpu.jsonl:1: field 'line': expected the prediction's line number"
rm s3/cpu.jsonl
expect_status 2 "$FAILMAP" grade merge s1 s2 s4 --out gap
expect_error_mentions "shard 3/4 is missing"
expect_status 2 "$FAILMAP" grade merge s1 s2 s3 s4 s4 --out overlap
expect_error_mentions "are both shard 4/4 (overlap)"
echo tampered >> s2/results.jsonl
expect_status 1 "$FAILMAP" grade merge s1 s2 s3 s4 --out tampered
expect_error_mentions "s2/SHA256SUMS:"
expect_error_mentions "'results.jsonl': SHA-256 does not match (file changed since the grading wrote it)"
[ ! -e gap ] && [ ! -e overlap ] && [ ! -e tampered ] || fail "a refused merge wrote its folder"

# Bad predictions: every problem named, nothing written.
printf '%s\n' '{"case": "FA-98921", "model": "m", "source": "def solve(a, b):\n    return 0\n"}' \
  '{"case": "FA-00000", "model": "m", "source": "x"}' \
  '{"case": "FA-98921", "model": "m", "smaple": 1, "source": "x"}' \
  '{"case": "FA-98921", "model": "", "sample": -1, "source": 3}' \
  '{"case": "FA-98921", "model": "m", "source": "def solve(a, b):\n    return 1\n"}' > bad.jsonl
expect_status 2 "$FAILMAP" grade bad.jsonl --out nothing
expect_error_mentions "bad.jsonl:2: field 'case': no case FA-00000 in"
expect_error_mentions "bad.jsonl:3: field 'smaple': not a prediction field (case, model, sample, source, completion, meta)"
expect_error_mentions "bad.jsonl:4: field 'model': expected a model name of 1 to 200 bytes, got the string \"\""
expect_error_mentions "bad.jsonl:4: field 'sample': expected an integer from 0 to 2147483647, got the number -1"
expect_error_mentions "bad.jsonl:4: field 'source': expected a string, got the number 3"
expect_error_mentions "bad.jsonl:5: field 'sample': case FA-98921, model \"m\", sample 0 is given twice (first on line 1)"
expect_error_mentions "problem(s) in bad.jsonl; nothing was graded"
# A reason that says what it got is followed by the value, not by a second "got".
python3 -c 'import json; print(json.dumps({"case": "FA-98921", "model": "a" * 201, "source": "x"}))' > long-name.jsonl
expect_status 2 "$FAILMAP" grade long-name.jsonl --out nothing
expect_error_mentions "long-name.jsonl:1: field 'model': expected a model name of 1 to 200 bytes, got 201 bytes: the string \"aaaa"

[ ! -e nothing ] || fail "refused predictions wrote --out"

# --split: only the cases of one split of a split folder.
expect_status 0 "$FAILMAP" split --ratios train=0.5,test=0.5 --out sp
python3 - <<'PY'
import json
def ids(name):
    return [json.loads(l)["id"] for l in open(f"sp/{name}.jsonl") if json.loads(l).get("record", "case") == "case"]
test, train = ids("test"), ids("train")
src = "def solve(*a):\n    return 0\n"
open("split_ok.jsonl", "w").write(json.dumps({"case": test[0], "model": "m", "source": src}) + "\n")
open("split_bad.jsonl", "w").write(json.dumps({"case": test[0], "model": "m", "source": src}) + "\n" +
                                   json.dumps({"case": train[0], "model": "m", "source": src}) + "\n")
open("train_id", "w").write(train[0])
PY
expect_status 2 "$FAILMAP" grade split_bad.jsonl --split sp --split-name test --out refused_split
expect_error_mentions "split_bad.jsonl:2: field 'case': case $(cat train_id) is not in split 'test' of sp (it is in 'train')"
expect_status 2 "$FAILMAP" grade split_ok.jsonl --split sp --split-name dev --out refused_split
expect_error_mentions "--split-name: sp has no split 'dev' (it has: test, train)"
expect_status 0 "$FAILMAP" grade split_ok.jsonl --split sp --split-name test --out graded_split --json
python3 -c 'import json,sys; s=json.load(open("graded_split/summary.json")); assert s["split"] == "test" and s["predictions"] == 1, s'
echo tampered >> sp/test.jsonl
expect_status 1 "$FAILMAP" grade split_ok.jsonl --split sp --split-name test --out refused_split
expect_error_mentions "sp/SHA256SUMS:"
expect_error_mentions "'test.jsonl': SHA-256 does not match (file changed after the split)"
[ ! -e refused_split ] || fail "a refused grade wrote its folder"
# A timeout of 0 is refused, and the message says so (it said "from 0 to 3600").
expect_status 2 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out t0 --timeout 0
expect_error_mentions "--timeout: expected seconds greater than 0 and at most 3600"
[ ! -e t0 ] || fail "a refused grade wrote t0"
