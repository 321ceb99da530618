# A bundle manifest names the export's tier "export_tier" (format_version 2 on), apart from each case record's
# "case_tier" (format_version 3), the case's access tier; a version-1 bundle, whose manifest said "tier" for the
# export's tier and whose case records said "tier" for the case's, is still read.
needs_repairs  # an open export of salted cases carries a repair commitment the open build cannot compute
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json"
sqlite3 "$FAILMAP_DB" "UPDATE cases SET tier = 'member' WHERE id = 'FA-11135'"
expect_status 0 "$FAILMAP" digest regenerate
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out open
python3 - <<'PY' || fail "manifest or records"
import json
m = json.load(open("open/manifest.json"))
assert m["format_version"] == 3 and m["export_tier"] == "open" and "tier" not in m, m
tiers = {json.loads(l)["id"]: json.loads(l)["case_tier"] for l in open("open/cases.jsonl")}
assert tiers == {"FA-11135": "member", "FA-98921": "open"}, tiers
PY
python3 - <<'PY'
import json
m = json.load(open("open/manifest.json"))
v1 = {("tier" if k == "export_tier" else k): v for k, v in m.items()}
v1["format_version"] = 1
open("open/manifest.json", "w").write(json.dumps(v1, separators=(",", ":")) + "\n")
cases = [{("tier" if k == "case_tier" else k): v for k, v in json.loads(l).items()} for l in open("open/cases.jsonl")]
open("open/cases.jsonl", "w").write("".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) + "\n" for c in cases))
PY
resum_bundle open
expect_status 0 "$FAILMAP" verify-bundle open
echo "$out" | grep -qF "verified open (open tier)" || fail "verify-bundle of a version-1 manifest: $out"
expect_status 0 "$FAILMAP" --db other.db import open
