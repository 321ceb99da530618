# split --format tasks: each split's file holds task records (schema/TASKS.md) plus "split"; every split but
# train is written at --test-tier, open by default (no repaired_source), train at the member tier; the report
# lists the units with their mechanisms and sizes and warns of a unit larger than a requested share.
expect_status 0 "$FAILMAP" import "$SRC/cases"
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --format tasks --out s
cat > want.txt <<'TXT'
split 31 case(s) in 5 unit(s) (largest 16) into 2 splits, seed 0, balanced
SPLIT   REQUESTED  ACHIEVED  ITEMS     UNITS
train   0.8000     0.8065    25        3
test    0.2000     0.1935    6         2
max deviation 0.65 pp (guaranteed below one largest unit: 51.61 pp)
UNIT                          CASES  SHARE    SPLIT  MECHANISMS
group:gradient-accumulation   16     51.61%   train  gradient-accumulation-weighting, padded-token-loss-mean, partial-accumulation-flush, resume-batch-skip, steps-per-epoch-with-accumulation, token-weighted-accumulation-loss
group:lr-schedule             6      19.35%   train  linear-decay-final-step, warmup-off-by-one
group:distributed-evaluation  3      9.68%    test   distributed-sampler-padding
group:ema                     3      9.68%    test   ema-bias-correction
group:gradient-clipping       3      9.68%    train  global-norm-clipping
TXT
diff want.txt stdout.txt || fail "split report differs"
[ "$err" = "failmap: warning: unit group:gradient-accumulation holds 16 of 31 case(s) (51.61%), more than the 0.2000 asked for split test: no assignment can balance the splits" ] ||
  fail "warning: $err"
expect_status 0 "$FAILMAP" split check s
[ "$out" = "clean: 62 line(s), 31 of 31 case(s) in 5 unit(s)" ] || fail "split check: $out"

# The test split's lines are the open export's task lines of those cases, plus their split.
expect_status 0 "$FAILMAP" export --format tasks --out open
python3 - <<'PY' || fail "split task lines"
import json, os
export = {json.loads(l)["task_id"]: l for l in open("open/tasks.jsonl", encoding="utf-8")}
manifest = json.load(open("s/manifest.json"))
assert manifest["record_format"] == "tasks" and manifest["test_tier"] == "open", manifest
assert [u["unit"] for u in manifest["unit_list"]] == ["group:distributed-evaluation", "group:ema",
    "group:gradient-accumulation", "group:gradient-clipping", "group:lr-schedule"], manifest["unit_list"]
assert manifest["unit_list"][4] == {"unit": "group:lr-schedule", "items": 6, "split": "train",
    "mechanisms": ["linear-decay-final-step", "warmup-off-by-one"]}, manifest["unit_list"][4]
assign = {json.loads(l)["id"]: json.loads(l)["split"] for l in open("s/assignments.jsonl")}
for split in ("train", "test"):
    for line in open(f"s/{split}.jsonl", encoding="utf-8"):
        t = json.loads(line)
        assert t.pop("split") == split and assign[t["task_id"]] == split, t["task_id"]
        if split == "test":
            assert "repaired_source" not in t and line == export[t["task_id"]][:-2] + ',"split":"test"}\n', t["task_id"]
        else:
            assert ("repaired_source" in t) == (os.environ.get("FAILMAP_REPAIRS", "1") == "1"), t["task_id"]
print(len(assign))
PY

# Folds: every fold is an evaluation side, written at the open tier.
expect_status 0 "$FAILMAP" split --folds 5 --format tasks --out f
! grep -q repaired_source f/fold-*.jsonl || fail "a fold carries the repair"
expect_error_mentions "failmap: warning: unit group:gradient-accumulation holds 16 of 31 case(s) (51.61%), more than the 0.2000 asked for split fold-1"
expect_status 2 "$FAILMAP" split --ratios train=0.8,test=0.2 --format json --out x
expect_error_mentions "--format: expected cases (case and run records) or tasks (schema/TASKS.md), got 'json'"
[ ! -e x ] || fail "a refused split left a folder"

# The answer only when asked for.
needs_repairs
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --format tasks --test-tier member --out m
[ "$(grep -c '"repaired_source"' m/test.jsonl)" -eq 6 ] || fail "--test-tier member: test lacks repaired_source"
