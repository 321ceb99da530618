# Graders side by side: four `grade --shard I/4` runs started at once through
# GNU parallel (the README's recipe), each recording into one archive, while an
# `instantiate` and an `import` write to it too. Every command succeeds, the
# record holds every grading once, the merged shards are the bytes of an
# unsharded run, and the same sharded run again (now recalled from the record)
# writes the same bytes once more.
command -v parallel >/dev/null || fail "GNU parallel is missing (scripts/install-deps.sh installs Debian 'parallel')"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
# Six candidates per shipped case: four that return one thing or another, one
# that raises, one that does not compile.
python3 - "$SRC/cases" > preds.jsonl <<'PY'
import json, os, sys
ids = sorted(f[:-5] for f in os.listdir(sys.argv[1]) if f.endswith(".json"))
sources = ["def solve(*args):\n    return None\n", "def solve(*args):\n    return 0\n",
           "def solve(*args):\n    return [0] * 3\n", "def solve(*args):\n    return args[0]\n",
           "def solve(*args):\n    raise ValueError('no')\n", "def solve(*args)\n    return 1\n"]
for case in ids:
    for s, src in enumerate(sources):
        print(json.dumps({"case": case, "model": "m%d" % (s % 2), "sample": s // 2, "source": src}))
PY
lines=$(wc -l < preds.jsonl)
python3 "$SRC/tests/harness/gen_seed_cases.py" files gen 1 300
# The unsharded run, on a copy of the archive as it is now, recording nothing.
sqlite3 "$FAILMAP_DB" ".backup whole.db"
expect_status 0 "$FAILMAP" --db whole.db grade preds.jsonl --no-record --out whole

# At once: the four shards (recording), an instantiate and an import.
parallel -j4 "$FAILMAP" -q grade preds.jsonl --jobs 1 --shard {}/4 --out shard-{} '>' out-{}.txt '2>' err-{}.txt \
  ::: 1 2 3 4 & pp=$!
sleep 0.5
"$FAILMAP" -q instantiate warmup-off-by-one --param N=200..299 > inst.out 2> inst.err & pi=$!
"$FAILMAP" -q import gen > imp.out 2> imp.err & pm=$!
shards_ok=0; wait $pp || shards_ok=$?
[ "$shards_ok" = 0 ] || fail "$shards_ok of the 4 shards failed: $(cat err-*.txt)"
wait $pi || fail "instantiate beside the graders failed: $(cat inst.err)"
wait $pm || fail "import beside the graders failed: $(cat imp.err)"
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM cases')" = $((SHIPPED + 100 + 300)) ] || fail "cases of the instantiate or import missing"
# Every distinct (case, source) graded is recorded, except the machine-dependent errors (none here).
distinct=$(python3 -c 'import json,sys; print(len({(j["case"], j["source"]) for j in map(json.loads, open("preds.jsonl"))}))')
[ "$(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings')" = "$distinct" ] || fail "the record holds $(sqlite3 "$FAILMAP_DB" 'SELECT count(*) FROM gradings') gradings, not $distinct"

expect_status 0 "$FAILMAP" grade merge shard-1 shard-2 shard-3 shard-4 --out merged
cmp merged/results.jsonl whole/results.jsonl || fail "the merged shards differ from the unsharded run"
cmp merged/summary.json whole/summary.json || fail "the merged summary differs from the unsharded run's"
[ "$(wc -l < merged/results.jsonl)" = "$lines" ] || fail "merged: not $lines lines"

# Again, every grading now recalled from the record: the same bytes.
parallel -j4 "$FAILMAP" -q grade preds.jsonl --jobs 1 --shard {}/4 --out again-{} ::: 1 2 3 4 || fail "the recalled shards failed"
for i in 1 2 3 4; do
  cmp again-$i/results.jsonl shard-$i/results.jsonl || fail "shard $i recalled from the record differs from its graded bytes"
done
