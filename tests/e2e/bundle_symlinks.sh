# A symbolic link in a bundle folder is refused like any other entry that is not a plain file, also one to a
# file with the very bytes the bundle lists. Before: verify-bundle followed it ("everything matches", exit 0),
# import imported through it, and a link to /etc/passwd had its lines quoted in the report.
needs_repairs  # it exports
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
expect_status 0 "$FAILMAP" -q export --format jsonl --out good
before=$(archive_state)
cp -r good linked && mv linked/runs.jsonl outside.jsonl && ln -s "$PWD/outside.jsonl" linked/runs.jsonl
expect_status 1 "$FAILMAP" verify-bundle linked
printf '%s\n' "$out" | grep -qxF "linked/runs.jsonl: a bundle holds only plain files, not symbolic links" || fail "verify-bundle linked: $out"
expect_status 2 "$FAILMAP" import linked
expect_error_mentions "linked/runs.jsonl: a bundle holds only plain files, not symbolic links"
# A link to a file outside: refused, and nothing of that file is read or quoted.
cp -r good passwd && rm passwd/cases.jsonl && ln -s /etc/passwd passwd/cases.jsonl
expect_status 1 "$FAILMAP" verify-bundle passwd --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert not any("root" in json.dumps(p) for p in j["problems"]), j["problems"]
assert {"file": "passwd/cases.jsonl", "message": "a bundle holds only plain files, not symbolic links"}.items() <= \
    next(p for p in j["problems"] if p["file"] == "passwd/cases.jsonl").items(), j["problems"]
assert j["cases"] == 0, j' || fail "verify-bundle passwd: $out"
expect_status 2 "$FAILMAP" import passwd
[ "$(archive_state)" = "$before" ] || fail "the archive changed"
# A linked manifest.json: not a bundle, one error.
cp -r good linkedmanifest && mv linkedmanifest/manifest.json m.json && ln -s "$PWD/m.json" linkedmanifest/manifest.json
expect_status 2 "$FAILMAP" verify-bundle linkedmanifest
[ "$err" = "failmap: error: linkedmanifest/manifest.json: not a plain file (not a bundle)" ] || fail "linked manifest: $err"
expect_status 0 "$FAILMAP" verify-bundle good
# A FIFO as SHA256SUMS is refused, not opened (the open blocked verify-bundle and import for ever).
cp -r good fifo && rm fifo/SHA256SUMS && mkfifo fifo/SHA256SUMS
set +e
timeout 20 "$FAILMAP" verify-bundle fifo >stdout.txt 2>stderr.txt; got=$?
set -e
[ "$got" -eq 2 ] || fail "verify-bundle with a FIFO SHA256SUMS exited $got (124: it blocked): $(cat stderr.txt)"
[ "$(cat stderr.txt)" = "failmap: error: fifo/SHA256SUMS: a bundle holds only plain files" ] || fail "FIFO sums: $(cat stderr.txt)"
set +e
timeout 20 "$FAILMAP" import fifo >stdout.txt 2>stderr.txt; got=$?
set -e
[ "$got" -eq 2 ] || fail "import of a bundle with a FIFO SHA256SUMS exited $got (124: it blocked)"
# A linked signature is not read: the summary does not call it valid.
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out pub.pem
expect_status 0 "$FAILMAP" -q export --format jsonl --out signed --sign key.pem
cp -r signed linkedsig && mv linkedsig/manifest.json.sig sig.copy && ln -s "$PWD/sig.copy" linkedsig/manifest.json.sig
expect_status 1 "$FAILMAP" verify-bundle linkedsig --pubkey pub.pem --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["signature"] != "valid", j
assert any(p["file"] == "linkedsig/manifest.json.sig" and "not symbolic links" in p["message"] for p in j["problems"]), j' ||
  fail "linked signature: $out"
[ "$(archive_state)" = "$before" ] || fail "the archive changed"
