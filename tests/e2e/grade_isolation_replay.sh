# Held-out checks cannot be replayed: with --held-out, a candidate's calls,
# visible and held-out, run in an order shuffled by the documented rule
# (schema/GRADING.md "Held-out bindings"), so a cheater that ignores its
# arguments and returns the visible expected values by call number
# (ANS[n % 7]) fails held-out on every mechanism where any order can catch
# it: every one but those where a constant answer passes held-out too (all
# expected values equal, visible and held-out alike), which are listed.
# First, the order itself: a candidate that returns its call number shows
# where each visible call was made, which must be where the rule puts it.
expect_status 0 "$FAILMAP" import "$SRC/cases/"
python3 - "$SRC/cases" <<'PY'
import glob, json, os, sys
by_mechanism = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    c = json.load(open(path))
    by_mechanism.setdefault(c["mechanism"], c)
with open("replay.jsonl", "w") as f:
    for mech, c in sorted(by_mechanism.items()):
        answers = json.dumps([fx["expected"] for fx in c["fixtures"]])
        replay = ("import json\n"
                  f"ANS = json.loads({answers!r})\n"
                  "CALLS = [0]\n"
                  "def solve(*args):\n"
                  "    n = CALLS[0]\n"
                  "    CALLS[0] += 1\n"
                  "    return ANS[n % len(ANS)]\n")
        constant = ("import json\n"
                    f"ANS = json.loads({answers!r})\n"
                    "def solve(*args):\n"
                    "    return ANS[0]\n")
        f.write(json.dumps({"case": c["id"], "model": "replay", "source": replay}) + "\n")
        f.write(json.dumps({"case": c["id"], "model": "constant", "source": constant}) + "\n")
    counter = "CALLS = [0]\ndef solve(*args):\n    CALLS[0] += 1\n    return CALLS[0] - 1\n"
    with open("order.jsonl", "w") as g:
        g.write(json.dumps({"case": "FA-98921", "model": "counter", "source": counter}) + "\n")
PY
expect_status 0 "$FAILMAP" grade order.jsonl --out order0 --no-record
expect_status 0 "$FAILMAP" grade order.jsonl --out order3 --no-record --held-out 3
python3 - order0/results.jsonl order3/results.jsonl order.jsonl <<'PY'
import hashlib, json, sys
plain = json.loads(open(sys.argv[1]).readline())
held = json.loads(open(sys.argv[2]).readline())
pred = json.loads(open(sys.argv[3]).readline())
actual = lambda r: [o["actual"] for o in json.loads(r["observation"])["observations"]]
visible = len(plain["checks"])
# Without held-out bindings: the case's order, as the reference script calls.
assert actual(plain) == list(range(visible)), actual(plain)
# With 3: SplitMix64-driven Fisher-Yates over every call, seeded with the candidate's seed.
sha = hashlib.sha256(pred["source"].encode()).hexdigest()
state = int.from_bytes(hashlib.sha256(b"failmap-seed\0FA-98921\0" + sha.encode()).digest()[:8], "big")
M = (1 << 64) - 1
def nxt():
    global state
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
n = visible * 4  # this case's bindings have as many checks as the visible one
order = list(range(n))
for i in range(n - 1, 0, -1):
    j = nxt() % (i + 1)
    order[i], order[j] = order[j], order[i]
where = {call: position for position, call in enumerate(order)}
assert actual(held) == [where[i] for i in range(visible)], (actual(held), [where[i] for i in range(visible)])
print("order: visible calls made at positions", actual(held), "of", n)
PY
expect_status 0 "$FAILMAP" grade replay.jsonl --out replay --no-record --held-out 3 --jobs 2
python3 - replay/results.jsonl <<'PY'
import json, sys
rows = {}
for r in map(json.loads, open(sys.argv[1])):
    assert r["error"] is None, r
    rows.setdefault(r["mechanism"], {})[r["model"]] = r
replayed, uncatchable = [], []
for mech, m in sorted(rows.items()):
    if m["constant"]["held_out"]["resolved"]:
        uncatchable.append(mech)
    elif m["replay"]["held_out"]["resolved"]:
        replayed.append(mech)
assert not replayed, ("the call-order replay passed held-out on", replayed)
print("replay: fails held-out on", len(rows) - len(uncatchable), "of", len(rows), "mechanisms; a constant passes held-out on",
      uncatchable or "none")
PY
