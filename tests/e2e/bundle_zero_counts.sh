# manifest.json counts every record type of its bundle, zero included: a
# bundle of cases without runs says "run":0 (before, the member was absent).
needs_repairs  # an open bundle carries each case's repair commitment, which the open build cannot compute
"$FAILMAP" -q import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" -q export --format jsonl --out b
python3 -c '
import json
m = json.load(open("b/manifest.json"))
assert m["counts"] == {"case": 1, "mechanism": 1, "run": 0}, m["counts"]
assert list(m["counts"]) == ["case", "mechanism", "run"], m["counts"]
' || fail "counts: $(cat b/manifest.json)"
expect_status 0 "$FAILMAP" verify-bundle b
expect_status 0 "$FAILMAP" --db again.db import b
"$FAILMAP" -q export --format pages --out p
python3 -c 'import json; c = json.load(open("p/manifest.json"))["counts"]; assert c == {"page": 1}, c' ||
  fail "page counts: $(cat p/manifest.json)"
expect_status 0 "$FAILMAP" verify-bundle p
# A bundle written before zeros were counted (no "run" member) still verifies and imports.
python3 - <<'PY'
import json
m = json.load(open("b/manifest.json")); del m["counts"]["run"]
open("b/manifest.json", "w").write(json.dumps(m, separators=(",", ":")) + "\n")
PY
resum_bundle b
expect_status 0 "$FAILMAP" verify-bundle b
expect_status 0 "$FAILMAP" --db third.db import b
