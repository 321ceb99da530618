# grade merge refuses what grade refuses in predictions, and every line-number
# inconsistency: one shard line edited per mutation (SHA256SUMS recomputed, as
# whoever edits a shard can), each refused with exit 2 naming file and line,
# nothing written. The honest shards merge into the bytes of the unsharded run.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
rows = [{"case": "FA-98921", "model": f"m{i % 3}", "sample": i // 3,
         "source": f"def solve(batch_sizes, target):\n    return sum(batch_sizes) + {i}\n"} for i in range(24)]
open("preds.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
expect_status 0 "$FAILMAP" grade preds.jsonl --out whole --no-record
for i in 1 2; do expect_status 0 "$FAILMAP" grade preds.jsonl --out "s$i" --shard "$i/2" --no-record; done
expect_status 0 "$FAILMAP" grade merge s1 s2 --out merged
cmp -s whole/results.jsonl merged/results.jsonl || fail "honest shards: merged results differ from the unsharded run"

# mutate NAME EDIT: copies both shards to NAME.1 and NAME.2, runs the Python
# statements EDIT on shard 1's results lines as the list `rows` of dicts, writes
# them back compact, recomputes SHA256SUMS and merges: exit 2, no output.
mutate() {
  local name=$1 edit=$2
  rm -rf "$name.1" "$name.2"; cp -r s1 "$name.1"; cp -r s2 "$name.2"
  python3 - "$name.1" "$edit" <<'PY'
import hashlib, json, os, sys
d, edit = sys.argv[1], sys.argv[2]
path = os.path.join(d, "results.jsonl")
rows = [json.loads(l) for l in open(path, encoding="utf-8")]
exec(edit)
open(path, "w", encoding="utf-8").write("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows))
h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
PY
  expect_status 2 "$FAILMAP" grade merge "$name.1" "$name.2" --out "$name.out"
  [ ! -e "$name.out" ] || fail "$name: a refused merge wrote its folder"
}

# A repeated (case, model, sample): line 2 renamed as line 1's model and sample.
mutate repeat 'rows[1]["model"], rows[1]["sample"] = rows[0]["model"], rows[0]["sample"]'
expect_error_mentions "repeat.1/results.jsonl:2: case FA-98921, model \"$(python3 -c 'import json; print(json.loads(open("s1/results.jsonl").readline())["model"])')\", sample"
expect_error_mentions "is graded twice (also at repeat.1/results.jsonl:1): grade refuses a repeated (case, model, sample)"
# A sample out of range, both ways.
mutate sample_negative 'rows[0]["sample"] = -1'
expect_error_mentions "sample_negative.1/results.jsonl:1: field 'sample': expected an integer from 0 to 2147483647, got the number -1"
mutate sample_large 'rows[0]["sample"] = 2 ** 31'
expect_error_mentions "sample_large.1/results.jsonl:1: field 'sample': expected an integer from 0 to 2147483647, got the number 2147483648"
# A model name grade would refuse (an invisible character) or write otherwise (not NFC).
mutate model_invisible 'rows[0]["model"] = "m\u200b0"'
expect_error_mentions "model_invisible.1/results.jsonl:1: field 'model': U+200B ZERO WIDTH SPACE (an invisible format character) at character 2"
mutate model_nfd 'rows[0]["model"] = "e\u0301"'
expect_error_mentions "is not in Unicode Normalization Form C, as grade writes every model name"
# Line numbers: swapped within a shard, zero, past the file's end (a line in two
# shards is tests/e2e/grade_merge_integrity.sh's).
mutate swapped 'rows[0]["line"], rows[1]["line"] = rows[1]["line"], rows[0]["line"]'
expect_error_mentions "swapped.1/results.jsonl:2: field 'line': "
expect_error_mentions "a shard's lines are in the order of the predictions file (the line numbers were edited)"
mutate line_zero 'rows[0]["line"] = 0'
expect_error_mentions "line_zero.1/results.jsonl:1: field 'line': 0 is not a line of the 24-line predictions file the shards graded"
mutate line_past 'rows[-1]["line"] = 25'
expect_error_mentions "field 'line': 25 is not a line of the 24-line predictions file the shards graded"
# An edit that breaks no rule of one line (a fresh sample number, a source
# digest of the same shard) is caught by the predictions index every shard
# computed over the whole file.
mutate sample_edited 'rows[0]["sample"] = 99'
expect_error_mentions "the shards' lines are not the lines of the predictions file they graded (a line number, case, model, sample or source edited)"
mutate model_renamed 'rows[0]["model"] = "m9"'
expect_error_mentions "the shards' lines are not the lines of the predictions file they graded"
