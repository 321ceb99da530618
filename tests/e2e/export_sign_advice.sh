# The line after a signed export names a check the user can run as printed: the public key beside the private
# one when a *.pem there holds it, else the public key derived from the private one. Before: "--pubkey PUB.pem",
# a placeholder no file answers to.
needs_repairs  # the open build exports no archive (it cannot commit to the repairs)
"$FAILMAP" -q import "$SRC/cases/FA-98921.json"
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out a_other_pub.pem   # another key's public half, first in name order
openssl pkey -in key.pem -pubout -out pub.pem
mkdir "my keys" && cp key.pem "my keys/signing key.pem"

# advice_of DIR: the check command of the last export's stderr, run as printed (bash: the derived form uses <(...)).
run_advice() {
  local cmd
  cmd=$(sed -n 's/.*(check: failmap \(.*\))$/\1/p' stderr.txt)
  [ -n "$cmd" ] || fail "no check in: $err"
  set +e; eval "\"\$FAILMAP\" $cmd" > advice.txt 2>&1; local got=$?; set -e
  [ "$got" = 0 ] || fail "the printed check '$cmd' exited $got: $(cat advice.txt)"
  grep -q "signature valid: everything matches" advice.txt || fail "the printed check did not check the signature: $(cat advice.txt)"
}

expect_status 0 "$FAILMAP" export --sign key.pem --out signed
[ "$err" = "exported 1 case(s), 1 mechanism(s), 0 run(s) at the open tier to signed, signed (check: failmap verify-bundle signed --pubkey pub.pem)" ] ||
  fail "export --sign key.pem said: $err"
run_advice
# No public key beside it (and names that need quoting): derived from the private key.
expect_status 0 "$FAILMAP" export --sign "my keys/signing key.pem" --out "signed 2"
[ "$err" = "exported 1 case(s), 1 mechanism(s), 0 run(s) at the open tier to signed 2, signed (check: failmap verify-bundle 'signed 2' --pubkey <(openssl pkey -in 'my keys/signing key.pem' -pubout))" ] ||
  fail "export --sign 'my keys/signing key.pem' said: $err"
run_advice
# Unsigned: no --pubkey.
expect_status 0 "$FAILMAP" export --out plain
[ "$err" = "exported 1 case(s), 1 mechanism(s), 0 run(s) at the open tier to plain (check: failmap verify-bundle plain)" ] ||
  fail "export said: $err"
