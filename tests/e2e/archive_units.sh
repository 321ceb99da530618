# The shipped archive forms units that make a split worth having
# (cases/GROUPS.md): at least 45 units (cases linked by mechanism or
# evaluation group), none holding more than 8% of the shipped cases. The
# figures are failmap's (`stats --json`) and are recomputed here in Python
# from the case files by union-find over mechanism and evaluation_group.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
expect_status 0 "$FAILMAP" stats --json
printf '%s\n' "$out" >stats.json
python3 - "$SRC" <<'PY' || fail "the shipped units: $(cat stats.json)"
import glob, json, os, sys
cases = [json.load(open(f)) for f in glob.glob(os.path.join(sys.argv[1], "cases/*.json"))]
parent = {}
def find(x):
    while parent.setdefault(x, x) != x:
        x = parent[x]
    return x
for c in cases:
    keys = ["mechanism:" + c["mechanism"]] + ["group:" + g for g in c["evaluation_group"]]
    for k in keys[1:]:
        parent[find(k)] = find(keys[0])
sizes = {}
for c in cases:
    r = find("mechanism:" + c["mechanism"])
    sizes[r] = sizes.get(r, 0) + 1
s = json.load(open("stats.json"))
assert s["units"] == len(sizes), (s["units"], len(sizes))
assert s["largest_unit"]["cases"] == max(sizes.values()), (s["largest_unit"], max(sizes.values()))
assert len(sizes) >= 45, f"{len(sizes)} units, fewer than 45"
assert max(sizes.values()) <= 0.08 * len(cases), f"largest unit {max(sizes.values())} of {len(cases)} cases, over 8%"
PY
