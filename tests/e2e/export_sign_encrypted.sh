# An encrypted PEM key never makes failmap ask for a pass phrase: as the key given to --sign it is refused
# in failmap's words (before: OpenSSL prompted twice, then "not a PEM private key"), and beside the key it
# is skipped by the search for the public key the advice names (before: "Enter PEM pass phrase:" spliced
# into the summary line, and on a terminal the export blocked until killed).
needs_repairs  # the open build exports no archive (it cannot commit to the repairs)
"$FAILMAP" -q import "$SRC/cases/FA-98921.json"
mkdir keys
openssl genpkey -algorithm ed25519 -out keys/key.pem 2>/dev/null
openssl genpkey -algorithm ed25519 -aes256 -pass pass:secret -out keys/enc.pem 2>/dev/null
grep -q "BEGIN ENCRYPTED PRIVATE KEY" keys/enc.pem || fail "openssl wrote no encrypted key"
before=$(archive_state "$FAILMAP_DB")
# On a terminal when `script` (util-linux) is there, so that a prompt would block; else stdin from /dev/null.
in_terminal() {
  if command -v script >/dev/null; then
    local cmd; printf -v cmd '%q ' "$@"
    timeout 60 script -qec "$cmd" /dev/null < /dev/null
  else
    timeout 60 "$@" < /dev/null
  fi
}
set +e; in_terminal "$FAILMAP" export --sign keys/key.pem --out signed > out.txt 2>&1; status=$?; set -e
[ "$status" = 0 ] || fail "export --sign beside an encrypted key exited $status: $(cat out.txt)"
grep -qi "pass phrase" out.txt && fail "export asked for a pass phrase: $(cat out.txt)"
grep -qF "(check: failmap verify-bundle signed --pubkey <(openssl pkey -in keys/key.pem -pubout))" out.txt ||
  fail "the advice: $(cat out.txt)"
expect_status 2 "$FAILMAP" export --sign keys/enc.pem --out signed2 < /dev/null
[ "$err" = "failmap: error: keys/enc.pem: an encrypted PEM private key; failmap reads unencrypted keys only (\`openssl pkey -in keys/enc.pem -out PLAIN.pem\` writes it decrypted)" ] ||
  fail "export --sign of an encrypted key: $err"
[ ! -e signed2 ] || fail "a refused export wrote its folder"
[ "$(archive_state "$FAILMAP_DB")" = "$before" ] || fail "export changed the archive"
