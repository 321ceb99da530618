# verify-bundle's exit status follows docs/verify-bundle.md: a manifest that was read but lacks a member such as
# `counts` or `files` is a finding (exit 1, the report on stdout; before: exit 2, like a folder that is no bundle),
# and a folder without manifest.json is one error (before: `verify-bundle /etc` listed every sub-folder as "a
# bundle holds only plain files" first, and --pubkey repeated "manifest.json: cannot open").
needs_repairs  # it exports
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
expect_status 0 "$FAILMAP" -q export --format jsonl --out good
# drop MEMBER DIR: a copy of good/ without manifest member MEMBER, SHA256SUMS made to match (resum_bundle
# would rewrite the manifest's sha256 from its files).
drop() {
  cp -r good "$2"
  python3 - "$1" "$2/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[2])); del m[sys.argv[1]]
open(sys.argv[2], "w").write(json.dumps(m))
PY
  (cd "$2" && sha256sum $(ls | grep -v '^SHA256SUMS$') >../sums.tmp && mv ../sums.tmp SHA256SUMS)
}
drop counts nocounts
expect_status 1 "$FAILMAP" verify-bundle nocounts
[ "$out" = "nocounts/manifest.json: field 'counts': expected an object, got nothing (missing)
mismatch: nocounts (open tier): 4 file(s), 0 mechanism(s), 0 case(s), 0 run(s); signature absent; records not read (manifest.json is damaged): 1 mismatch(es)" ] ||
  fail "verify-bundle nocounts: $out"
[ -z "$err" ] || fail "nocounts: stderr: $err"
expect_status 1 "$FAILMAP" verify-bundle nocounts --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["ok"] is False and [p["field"] for p in j["problems"]] == ["counts"], j' || fail "nocounts --json: $out"
# No file list: one problem, not also one per sha256 member naming an unlisted file.
drop files nofiles
expect_status 1 "$FAILMAP" verify-bundle nofiles
[ "$(printf '%s\n' "$out" | head -n -1)" = "nofiles/manifest.json: field 'files': expected an array of file names, got nothing (missing)" ] ||
  fail "verify-bundle nofiles: $out"
# What leaves nothing to check is still unusable: 2.
drop format noformat
expect_status 2 "$FAILMAP" verify-bundle noformat
[ "$err" = "failmap: error: noformat/manifest.json: field 'format': expected a string, got nothing (missing)" ] || fail "noformat: $err"
drop export_tier notier
expect_status 2 "$FAILMAP" verify-bundle notier
cp -r good nosums && rm nosums/SHA256SUMS
expect_status 2 "$FAILMAP" verify-bundle nosums
[ "$err" = "failmap: error: nosums/SHA256SUMS: missing (not a bundle)" ] || fail "nosums: $err"
# A folder that is no bundle: one error, whatever it holds.
mkdir -p notbundle/a notbundle/b notbundle/c && echo x > notbundle/file.txt
expect_status 2 "$FAILMAP" verify-bundle notbundle
[ "$err" = "failmap: error: notbundle/manifest.json: missing (not a bundle)" ] ||
  fail "notbundle: $err"
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out pub.pem
expect_status 2 "$FAILMAP" verify-bundle notbundle --pubkey pub.pem
[ "$(wc -l <stderr.txt)" -eq 1 ] || fail "notbundle --pubkey: $err"
# ... but an unusable key is still named beside it.
expect_status 2 "$FAILMAP" verify-bundle notbundle --pubkey key.pem
[ "$(wc -l <stderr.txt)" -eq 2 ] || fail "notbundle --pubkey PRIVATE: $err"
expect_status 0 "$FAILMAP" verify-bundle good
# A bad SHA256SUMS line is a finding, and the records are still read (the summary blamed manifest.json).
cp -r good badsums && echo "garbage line" >> badsums/SHA256SUMS
expect_status 1 "$FAILMAP" verify-bundle badsums
printf '%s\n' "$out" | grep -qF "badsums/SHA256SUMS:5: expected '<sha256 hex>  <file name>'" || fail "badsums: $out"
printf '%s\n' "$out" | tail -1 | grep -q "1 case(s)" || fail "badsums: the records were not read: $out"
if printf '%s\n' "$out" | grep -q "records not read"; then fail "badsums: $out"; fi
