# failmap stats [--json]: cases, mechanisms, split units and the largest,
# runs recorded and missing, and duplicate content, each checked against
# what Python computes from the case files (units: union-find over mechanism
# and evaluation_group; content: the checks' json.dumps lines, as
# schema/SPLITS.md "Units" defines case_content_digest).
"$FAILMAP" -q import "$SRC/cases" >/dev/null
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..3 2>/dev/null >/dev/null   # N=1 repeats FA-98921, N=3 FA-58566
checks_may_fail "$FAILMAP" -q run FA-98921 >/dev/null
# The open build (-DFAILMAP_REPAIRS=OFF) records no repaired run: `run` runs broken and unsuccessful only.
[ "${FAILMAP_REPAIRS:-1}" = 0 ] || "$FAILMAP" -q run FA-11135 -s repaired >/dev/null
for n in 1 2 3; do "$FAILMAP" show V-gradient-accumulation-weighting-$n --json >V-$n.json; done
expect_status 0 "$FAILMAP" stats --json
printf '%s\n' "$out" >stats.json
python3 - "$SRC" <<'PY' || fail "stats --json: $(cat stats.json)"
import collections, glob, hashlib, json, os, sys
rep = 2 if os.environ.get("FAILMAP_REPAIRS", "1") == "1" else 0  # repaired runs recorded: FA-98921's, FA-11135's
src = sys.argv[1]
cases = [json.load(open(f)) for f in glob.glob(os.path.join(src, "cases/*.json"))]
cases += [json.load(open("V-%d.json" % n)) for n in (1, 2, 3)]  # failmap show --json of the variants
parent = {}
def find(x):
    while parent.setdefault(x, x) != x: x = parent[x]
    return x
for c in cases:
    keys = ["mechanism:" + c["mechanism"]] + ["group:" + g for g in c["evaluation_group"]]
    for k in keys[1:]: parent[find(k)] = find(keys[0])
units = {}
for c in cases:
    r = find("mechanism:" + c["mechanism"])
    units.setdefault(r, []).append(c)
def unit_key(members):
    return min(k for c in members for k in ["mechanism:" + c["mechanism"]] + ["group:" + g for g in c["evaluation_group"]])
sized = sorted(((len(m), unit_key(m)) for m in units.values()), key=lambda t: (-t[0], t[1]))
content = {}
for c in cases:
    h = hashlib.sha256("".join(json.dumps([f["args"], f["expected"]], ensure_ascii=False) + "\n" for f in c["fixtures"]).encode()).hexdigest()
    content.setdefault(h, []).append(c["id"])
dups = sorted((h, sorted(ids)) for h, ids in content.items() if len(ids) > 1)
s = json.load(open("stats.json"))
n = len(cases)
shipped = len(cases) - 3
assert s["cases"] == n, s["cases"]
assert s["mechanisms"] == len({c["mechanism"] for c in cases}) == len(glob.glob(os.path.join(src, "src/mechanisms/*.cc"))), s["mechanisms"]
assert s["units"] == len(units), (s["units"], len(units))
assert s["largest_unit"] == {"key": sized[0][1], "cases": sized[0][0], "share": sized[0][0] / n}, (s["largest_unit"], sized[0])
assert s["runs"] == {"recorded": 2 + rep, "missing": 3 * n - 2 - rep, "by_strategy": {
    "broken": {"recorded": 1, "missing": n - 1}, "unsuccessful": {"recorded": 1, "missing": n - 1},
    "repaired": {"recorded": rep, "missing": n - rep}}}, s["runs"]
# The shipped FA-98921 (N = 1) and FA-58566 (N = 3) have the variants' checks.
assert sorted(ids for h, ids in dups) == [["FA-58566", "V-gradient-accumulation-weighting-3"], ["FA-98921", "V-gradient-accumulation-weighting-1"]], dups
assert s["duplicate_content"] == {"sets": len(dups), "cases": sum(len(ids) for h, ids in dups),
                                  "members": [{"content": h, "cases": ids} for h, ids in dups]}, s["duplicate_content"]
shipped_gaw = sum(1 for c in cases[:shipped] if c["mechanism"] == "gradient-accumulation-weighting")
assert s["cases_by_mechanism"]["gradient-accumulation-weighting"] == shipped_gaw + 3, s["cases_by_mechanism"]
assert s["cases_by_mechanism"] == dict(sorted(collections.Counter(c["mechanism"] for c in cases).items())), s["cases_by_mechanism"]
open("expect.txt", "w").write(
    "largest unit:       %s, %d case(s), %.2f%% of the cases\n" % (sized[0][1], sized[0][0], 100 * sized[0][0] / n) +
    "runs recorded:      %d of %d (%d missing: broken %d, unsuccessful %d, repaired %d)\n" % (2 + rep, 3 * n, 3 * n - 2 - rep, n - 1, n - 1, n - rep) +
    "duplicate content:  %d case(s) in %d set(s) of identical checks\n" % (sum(len(ids) for h, ids in dups), len(dups)) +
    "".join("  %s: %s\n" % (h[:16], ", ".join(ids)) for h, ids in dups))
PY
expect_status 0 "$FAILMAP" stats
printf '%s\n' "$out" | sed -n '4,$p' >got.txt
cmp -s got.txt expect.txt || fail "stats text: $(cat got.txt) expected $(cat expect.txt)"
printf '%s\n' "$out" | head -1 | grep -qx "cases:              $((SHIPPED + 3))" || fail "stats text: $out"

# An empty archive: zeros, no largest unit, exit 0.
"$FAILMAP" --db empty.db -q import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" --db empty.db -q remove FA-98921 >/dev/null
expect_status 0 "$FAILMAP" --db empty.db stats --json
[ "$out" = '{"cases":0,"mechanisms":0,"cases_by_mechanism":{},"units":0,"largest_unit":null,"runs":{"recorded":0,"missing":0,"by_strategy":{"broken":{"recorded":0,"missing":0},"unsuccessful":{"recorded":0,"missing":0},"repaired":{"recorded":0,"missing":0}}},"duplicate_content":{"sets":0,"cases":0,"members":[]}}' ] ||
  fail "stats of an empty archive: $out"
