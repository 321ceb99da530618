# No byte of another candidate's source, arguments or report is in a
# candidate's memory: the planter holds a marker in its source and returns it
# (its report); the scanner, next in the same worker (--jobs 1), reads every
# readable mapping of its own memory through /proc/self/mem and counts the
# places where the marker's two halves meet. It holds the halves apart, so
# before it joins them the count is the number of copies another candidate
# left (expected 0); after it joins them, its own copy is found (the scan
# works). FA-98921's solve is solve(batch_sizes, target).
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
planter = ("MARK = 'zq7-planted-by-an-earlier-candidate-4f1c'\n"
           "KEEP = [MARK * 1000]\n"
           "def solve(batch_sizes, target):\n"
           "    return MARK\n")
scanner = ("import os\n"
           "LEFT = b'zq7-planted-by-an-'\n"
           "RIGHT = b'earlier-candidate-4f1c'\n"
           "def scan():\n"
           "    hits = 0\n"
           "    mem = os.open('/proc/self/mem', os.O_RDONLY)\n"
           "    with open('/proc/self/maps') as maps:\n"
           "        regions = [line.split() for line in maps]\n"
           "    for parts in regions:\n"
           "        lo, hi = (int(x, 16) for x in parts[0].split('-'))\n"
           "        if parts[1][0] != 'r' or (len(parts) > 5 and parts[5].startswith('[v')):\n"
           "            continue\n"
           "        at = lo\n"
           "        while at < hi:\n"
           "            n = min(1 << 20, hi - at)\n"
           "            try:\n"
           "                chunk = os.pread(mem, min(n + 64, hi - at), at)\n"
           "            except OSError:\n"
           "                break\n"
           "            i = chunk.find(LEFT)\n"
           "            while 0 <= i < n:\n"
           "                hits += chunk.startswith(RIGHT, i + len(LEFT))\n"
           "                i = chunk.find(LEFT, i + 1)\n"
           "            at += n\n"
           "    os.close(mem)\n"
           "    return hits\n"
           "def solve(batch_sizes, target):\n"
           "    before = scan()\n"
           "    joined = LEFT + RIGHT\n"
           "    return [before, scan() > 0]\n")
with open("memory.jsonl", "w") as f:
    for i, (model, src) in enumerate([("planter", planter), ("scanner", scanner), ("planter", planter + "# 2\n"),
                                      ("scanner", scanner + "# 2\n")]):
        f.write(json.dumps({"case": "FA-98921", "model": model, "sample": i, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade memory.jsonl --out g1 --jobs 1 --no-record --timeout 60
python3 - g1/results.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
actual = [json.loads(r["observation"])["observations"][0]["actual"] for r in rows]
assert [r["error"] for r in rows] == [None] * 4, [r["error"] for r in rows]
assert actual[0] == actual[2] == "zq7-planted-by-an-earlier-candidate-4f1c", actual
# No copy of the planter's marker in the scanner's memory, and the scan finds one that is there.
assert actual[1] == actual[3] == [0, True], actual
print("memory: no earlier candidate's bytes in a candidate's address space")
PY
expect_status 0 "$FAILMAP" grade memory.jsonl --out g2 --jobs 2 --no-record --timeout 60
expect_status 0 "$FAILMAP" grade memory.jsonl --out g4 --jobs 4 --no-record --timeout 60
cmp -s g1/results.jsonl g2/results.jsonl || fail "results.jsonl differs between --jobs 1 and 2"
cmp -s g1/results.jsonl g4/results.jsonl || fail "results.jsonl differs between --jobs 1 and 4"
