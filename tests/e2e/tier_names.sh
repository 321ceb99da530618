# Two tiers, two names: a member-tier case exported at the open tier says "case_tier":
# "member" (its access tier) and its export "export_tier": "open", in every format failmap writes; no record or
# manifest says a bare "tier" that a reader could take for the other. A bundle of format_version 2, whose case
# records said "tier", is still read; a version-3 record that says "tier" is refused.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
python3 - "$SRC/cases/FA-11135.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["tier"] = "member"; c["id"] = "FA-11136"
json.dump(c, open("member.json", "w"))
PY
expect_status 0 "$FAILMAP" import member.json

# check KIND FILE... : every JSON value of the files (JSON or JSON Lines) has no member "tier" at any depth, and
# every object naming FA-11136 (as id, task_id or case) says "case_tier": "member".
cat > check.py <<'PY'
import json, sys
kind, files = sys.argv[1], sys.argv[2:]
seen = 0
def walk(v, where):
    if isinstance(v, dict):
        assert "tier" not in v, f"{kind}: {where}: a bare 'tier': {v['tier']!r}"
        for k, x in v.items(): walk(x, where)
    elif isinstance(v, list):
        for x in v: walk(x, where)
for f in files:
    text = open(f, encoding="utf-8").read()
    values = [json.loads(text)] if f.endswith(".json") else [json.loads(l) for l in text.splitlines()]
    for n, v in enumerate(values, 1):
        walk(v, f"{f}:{n}")
        if isinstance(v, dict) and "FA-11136" in (v.get("id"), v.get("task_id")):
            assert v["case_tier"] == "member", f"{kind}: {f}:{n}: case_tier {v.get('case_tier')!r}"
            seen += 1
assert seen == 1, f"{kind}: FA-11136 described {seen} time(s), expected once"
PY
manifest_tier() {  # manifest_tier DIR WANT: the folder's manifest.json says export_tier WANT
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1]+"/manifest.json")); assert m["export_tier"]==sys.argv[2], m' "$1" "$2" ||
    fail "$1/manifest.json: export_tier is not $2"
}

expect_status 0 "$FAILMAP" list --json
printf '%s\n' "$out" >list.jsonl
python3 check.py "list --json" list.jsonl || fail "list --json"
[ "$(grep -c '"case_tier":"open"' list.jsonl)" -eq "$SHIPPED" ] || fail "list --json: the shipped cases are open"
expect_status 0 "$FAILMAP" stats --json
printf '%s\n' "$out" >stats.json
python3 - <<'PY' || fail "stats --json: $(cat stats.json)"
import json
def walk(v):
    if isinstance(v, dict):
        assert "tier" not in v, v
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
walk(json.load(open("stats.json")))
PY

expect_status 0 "$FAILMAP" export --format tasks --out tasks
manifest_tier tasks open
python3 check.py "tasks" tasks/tasks.jsonl tasks/manifest.json || fail "export --format tasks"

# Split folders: every fold is written at --test-tier (open); each split names its tier in manifest.json.
for format in tasks cases; do
  expect_status 0 "$FAILMAP" split --folds 2 --format "$format" --out "split-$format"
  python3 check.py "split --format $format" split-$format/fold-*.jsonl split-$format/manifest.json || fail "split $format"
  python3 - "split-$format/manifest.json" <<'PY' || fail "split --format $format: $(cat split-$format/manifest.json)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["format_version"] == 2 and m["test_tier"] == "open", m
assert [(s["name"], s["export_tier"]) for s in m["splits"]] == [("fold-1", "open"), ("fold-2", "open")], m["splits"]
PY
done
! grep -q '"strategy":"repaired"' split-cases/fold-*.jsonl || fail "an open fold holds a repaired run"

# The static site: the case tables' column is "Case tier"; its header says the export's tier.
expect_status 0 "$FAILMAP" export --format site --out site
manifest_tier site open
grep -q '<th scope="col">Case tier</th>' site/mechanism-*.html || fail "site: no 'Case tier' column"
! grep -q '<th scope="col">Tier</th>' site/*.html || fail "site: a bare 'Tier' column"
row=$(grep -h '<a href="case-FA-11136.html">FA-11136</a></td>' site/mechanism-*.html | head -1)
case "$row" in *"<td>member</td>"*) ;; *) fail "site: the row of FA-11136: $row" ;; esac
grep -q '<span class="tier">Open access</span>' site/index.html || fail "site: the header names the export's tier"

# A published page has one tier, the page's own: the header of an open page of a member case says Open access.
expect_status 0 "$FAILMAP" export --format pages --out pages FA-11136
manifest_tier pages open
head -1 pages/FA-11136.txt | grep -qx "FA-11136 / .* / Open access" || fail "page header: $(head -1 pages/FA-11136.txt)"
! grep -q " / Member access$" pages/FA-11136.txt || fail "an open page names the member tier as its own"

needs_repairs  # an open bundle's case records carry a repair commitment, which the open build cannot compute
expect_status 0 "$FAILMAP" export --format jsonl --out bundle
manifest_tier bundle open
python3 check.py "bundle" bundle/cases.jsonl bundle/runs.jsonl bundle/manifest.json || fail "export --format jsonl"
grep -q '"format_version":3,' bundle/manifest.json || fail "bundle format_version: $(cat bundle/manifest.json)"
grep -q '^{"record":"case","format":"failmap-case","format_version":1,"id":"FA-11136","mechanism":"[a-z-]*","variant":[0-9]*,"title":"[^"]*","case_tier":"member","summary":' bundle/cases.jsonl ||
  fail "bundle: case_tier not in the place of the case file's tier"

# The same bundle as format_version 2 wrote it: case records said "tier". Still read by verify-bundle and import.
cp -r bundle v2
python3 - v2 <<'PY'
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(d + "/cases.jsonl", encoding="utf-8")]
out = [{("tier" if k == "case_tier" else k): v for k, v in c.items()} for c in lines]
open(d + "/cases.jsonl", "w", encoding="utf-8").write(
    "".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) + "\n" for c in out))
m = json.load(open(d + "/manifest.json")); m["format_version"] = 2
open(d + "/manifest.json", "w").write(json.dumps(m, separators=(",", ":")) + "\n")
PY
resum_bundle v2
expect_status 0 "$FAILMAP" verify-bundle v2
expect_status 0 "$FAILMAP" --db v2.db import v2
expect_status 0 "$FAILMAP" --db v2.db list --json --tier member
[ "$(printf '%s\n' "$out" | python3 -c 'import json,sys; print([(j["id"], j["case_tier"]) for j in map(json.loads, sys.stdin)])')" = "[('FA-11136', 'member')]" ] ||
  fail "version-2 import: $out"
expect_status 0 "$FAILMAP" --db v2.db export --format jsonl --out again
cmp bundle/cases.jsonl again/cases.jsonl || fail "version 2 imported and exported again differs from the version-3 export"

# Each version refuses the other's name.
cp -r bundle v3tier; sed -i 's/"case_tier":"member"/"tier":"member"/' v3tier/cases.jsonl; resum_bundle v3tier
line=$(grep -n '"id":"FA-11136"' v3tier/cases.jsonl | cut -d: -f1)
expect_status 1 "$FAILMAP" verify-bundle v3tier  # a record that does not parse: a failed check
printf '%s\n' "$out" | grep -qF "v3tier/cases.jsonl:$line: field 'tier': a case record of bundle format_version 3 names the case's access tier 'case_tier'" ||
  fail "verify-bundle v3tier: $out"
before=$(archive_state)
expect_status 2 "$FAILMAP" import v3tier
expect_error_mentions "v3tier/cases.jsonl:$line: field 'tier': a case record of bundle format_version 3 names the case's access tier 'case_tier'"
[ "$(archive_state)" = "$before" ] || fail "a refused import changed the archive"
cp -r v2 v2case; sed -i '0,/"tier":"open"/s//"case_tier":"open"/' v2case/cases.jsonl; resum_bundle v2case
expect_status 2 "$FAILMAP" --db v2case.db import v2case
expect_error_mentions "v2case/cases.jsonl:1: field 'case_tier': not in a bundle of format_version 2, whose case records name the case's access tier 'tier'"
