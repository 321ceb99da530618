# failmap mechanisms [--json]: every compiled mechanism with its evaluation
# groups, parameters (minimum, maximum, default) and the archive's cases of it.
# Expected values come from the case files (counted by Python) and from the
# mechanism sources in src/mechanisms/.
expect_status 0 "$FAILMAP" mechanisms --json    # no archive yet: counts 0, not an error
[ ! -e "$FAILMAP_DB" ] || fail "mechanisms created an archive"
printf '%s\n' "$out" >before.jsonl
"$FAILMAP" -q import "$SRC/cases" >/dev/null
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=2..5 >/dev/null
expect_status 0 "$FAILMAP" mechanisms --json
printf '%s\n' "$out" >after.jsonl
python3 - "$SRC" <<'PY' || fail "mechanisms --json: $(cat after.jsonl)"
import collections, glob, json, os, re, sys
src = sys.argv[1]
files = sorted(glob.glob(os.path.join(src, "src/mechanisms/*.cc")))
ids = [os.path.basename(f)[:-3] for f in files]
counts = collections.Counter(json.load(open(f))["mechanism"] for f in glob.glob(os.path.join(src, "cases/*.json")))
counts["gradient-accumulation-weighting"] += 4  # instantiated N = 2..5
for name, want in (("before.jsonl", collections.Counter()), ("after.jsonl", counts)):
    rows = [json.loads(l) for l in open(name)]
    assert [r["id"] for r in rows] == ids, [r["id"] for r in rows]
    for r, f in zip(rows, files):
        text = open(f).read()
        assert list(r) == ["id", "title", "source", "evaluation_group", "parameters", "checks", "repair_compiled", "cases"], list(r)
        assert r["cases"] == want[r["id"]], (r["id"], r["cases"], want[r["id"]])
        assert '.title = "%s"' % r["title"] in text, r["title"]
        groups = re.search(r"\.evaluation_group = \{([^}]*)\}", text).group(1)
        assert r["evaluation_group"] == re.findall(r'"([^"]*)"', groups), (r["id"], r["evaluation_group"])
        minimum = re.search(r"\.parameter_minimum = \{([^}]*)\}", text).group(1)
        maximum = re.search(r"\.parameter_maximum = \{([^}]*)\}", text).group(1)
        names = re.findall(r'"([^"]*)"', re.search(r"\.parameters = \{([^}]*)\}", text).group(1))
        assert [p["name"] for p in r["parameters"]] == names, r["parameters"]
        assert [p["minimum"] for p in r["parameters"]] == [int(x) for x in minimum.split(",") if x.strip()], r
        assert [p["maximum"] for p in r["parameters"]] == ([int(x) for x in maximum.split(",")] if maximum.strip() else [None] * len(names)), r
        assert r["source"] == (re.search(r'\.source = "([^"]*)"', text).group(1) if '.source = "' in text else None), r["source"]
        # The open build (-DFAILMAP_REPAIRS=OFF) compiles no repair in, and says so.
        assert r["checks"] == 7 and r["repair_compiled"] is (os.environ.get("FAILMAP_REPAIRS", "1") == "1"), r
    assert all(p["default"] == 1 for r in rows for p in r["parameters"]), rows
PY

expect_status 0 "$FAILMAP" mechanisms
gaw=$(grep -l '"mechanism": *"gradient-accumulation-weighting"' "$SRC"/cases/*.json | wc -l)   # shipped cases of it
gaw_source=$(sed -n 's/^ *\.source = "\([^"]*\)".*/\1/p' "$SRC/src/mechanisms/gradient-accumulation-weighting.cc")
[ -n "$gaw_source" ] || gaw_source="none (taken from a published case page)"
printf '%s\n' "$out" | grep -A5 -x "gradient-accumulation-weighting  ($((gaw + 4)) case(s))" >block.txt ||
  fail "no block for the seed mechanism: $out"
[ "$(sed -n 2,5p block.txt)" = "  title:             Gradient accumulation weighting
  source:            $gaw_source
  evaluation_group:  gradient-accumulation
  parameters:        N >= 1 (no declared maximum), default 1" ] || fail "seed mechanism block: $(cat block.txt)"
n=$(ls "$SRC"/src/mechanisms/*.cc | wc -l)
[ "$(printf '%s\n' "$out" | tail -1)" = "$n mechanism(s) compiled in; $((SHIPPED + 4)) case(s) of them in $FAILMAP_DB" ] ||
  fail "mechanisms footer: $(printf '%s\n' "$out" | tail -1)"
expect_status 0 "$FAILMAP" --db nothing.db mechanisms
[ "$(printf '%s\n' "$out" | tail -1)" = "$n mechanism(s) compiled in; no archive at nothing.db (case counts 0; failmap import cases/ fills one)" ] ||
  fail "mechanisms without an archive: $(printf '%s\n' "$out" | tail -1)"
