# Reproducible verdicts: a candidate's `random` is seeded from its case and
# its source alone (schema/GRADING.md "Seeds"). Sixteen samples that pass
# only when random.random() < 0.5 get the same results.jsonl in two runs, for
# --jobs 1, 2 and 4, and from three shards graded by GNU parallel and merged;
# what each returned is what Python's own random.Random gives for the seed
# the documented rule computes.
command -v parallel >/dev/null || fail "GNU parallel is missing (scripts/install-deps.sh installs Debian's parallel)"
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
with open("random.jsonl", "w") as f:
    for k in range(16):
        src = (f"# sample {k}\n"
               "import random\n"
               "FIRST = random.random()\n"
               "def solve(batch_sizes, target):\n"
               "    return sum(batch_sizes) if FIRST < 0.5 else FIRST\n")
        f.write(json.dumps({"case": "FA-98921", "model": "coin", "sample": k, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade random.jsonl --out a1 --jobs 1 --no-record
expect_status 0 "$FAILMAP" grade random.jsonl --out b1 --jobs 1 --no-record
expect_status 0 "$FAILMAP" grade random.jsonl --out a2 --jobs 2 --no-record
expect_status 0 "$FAILMAP" grade random.jsonl --out a4 --jobs 4 --no-record
for d in b1 a2 a4; do
  cmp -s a1/results.jsonl $d/results.jsonl || fail "results.jsonl of $d differs from a1's"
done
parallel --halt now,fail=1 "$FAILMAP" grade random.jsonl --shard {}/3 --out shard-{} --no-record --jobs 1 '>/dev/null' ::: 1 2 3 \
  || fail "a shard failed"
expect_status 0 "$FAILMAP" grade merge shard-1 shard-2 shard-3 --out merged
cmp -s a1/results.jsonl merged/results.jsonl || fail "the merged shards' results.jsonl differs from the unsharded run's"
python3 - a1/results.jsonl random.jsonl <<'PY'
import hashlib, json, random, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
preds = [json.loads(l) for l in open(sys.argv[2])]
verdicts = []
for r, p in zip(rows, preds):
    source_sha = hashlib.sha256(p["source"].encode()).hexdigest()
    seed = int.from_bytes(hashlib.sha256(b"failmap-seed\0" + p["case"].encode() + b"\0" + source_sha.encode()).digest()[:8], "big")
    first = random.Random(seed).random()
    actual = json.loads(r["observation"])["observations"][0]["actual"]
    assert actual == (3 if first < 0.5 else first), (p["sample"], actual, first)
    verdicts.append(r["verdict"])
# Both outcomes occur: the seed differs between the sources.
assert len(set(verdicts)) == 2, verdicts
print("seed: each candidate's random.random() is the documented seed's; verdicts", verdicts)
PY
