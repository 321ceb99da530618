# verify-bundle's exit status: 1 whenever the bundle was read and a check
# failed, a file whose SHA-256 no longer matches included (before: 2); 2 only
# when the input cannot be used at all. Its --help names exactly the members
# its --json prints.
needs_repairs  # its bundles are member-tier exports
"$FAILMAP" -q import "$SRC/cases/FA-98921.json" >/dev/null
checks_may_fail "$FAILMAP" -q run FA-98921 >/dev/null
"$FAILMAP" -q export --format jsonl --tier member --out good
cp -r good edited
# One byte of a record changed, SHA256SUMS and the manifest left as they were.
python3 - edited/cases.jsonl <<'PY'
import sys
p = sys.argv[1]; b = open(p, "rb").read()
assert b"The final short batch" in b
open(p, "wb").write(b.replace(b"The final short batch", b"The final short bat_h", 1))
PY
expect_status 1 "$FAILMAP" verify-bundle edited
printf '%s\n' "$out" | grep -qF "edited/SHA256SUMS:1: 'cases.jsonl': SHA-256 does not match (file changed or corrupt)" ||
  fail "verify-bundle of an edited file: $out"
printf '%s\n' "$out" | tail -1 | grep -q "^mismatch: edited (member tier): .* mismatch(es)$" || fail "summary: $out"
[ -z "$err" ] || fail "a bundle that was read reported on stderr: $err"
expect_status 1 "$FAILMAP" verify-bundle edited --json
printf '%s\n' "$out" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["ok"] is False and j["cases"] == 1, j
assert any(p["file"].endswith("SHA256SUMS") and "does not match" in p["message"] for p in j["problems"]), j["problems"]
' || fail "verify-bundle --json of an edited file: $out"
# A record that no longer parses (the bundle was still read): 1.
cp -r good broken
printf '{"record": "case", \n' >>broken/cases.jsonl
resum_bundle broken
expect_status 1 "$FAILMAP" verify-bundle broken
expect_status 1 "$FAILMAP" verify-bundle broken --json

# Unusable input: 2.
expect_status 2 "$FAILMAP" verify-bundle missing
expect_error_mentions "not a bundle folder (no such folder)"
mkdir empty
expect_status 2 "$FAILMAP" verify-bundle empty
expect_status 2 "$FAILMAP" verify-bundle empty --json
printf '%s\n' "$out" | python3 -c 'import json,sys; assert json.loads(sys.stdin.read())["ok"] is False' || fail "--json unusable: $out"
expect_status 2 "$FAILMAP" verify-bundle good --pubkey no-such-key.pem
expect_status 0 "$FAILMAP" verify-bundle good

# --help names the members --json prints, and only them.
expect_status 0 "$FAILMAP" verify-bundle good --json
printf '%s\n' "$out" >report.json
"$FAILMAP" verify-bundle --help >help.txt
python3 - <<'PY' || fail "verify-bundle --help: $(cat help.txt)"
import json, re
keys = list(json.load(open("report.json")))
help_text = " ".join(open("help.txt").read().split())
said = re.search(r"--json +one JSON object: (.*?) problems \[", help_text).group(1)
names = [w for w in re.findall(r"[a-z_]+", re.sub(r"\([^)]*\)", "", said))]
assert names + ["problems"] == keys, (names, keys)
PY
