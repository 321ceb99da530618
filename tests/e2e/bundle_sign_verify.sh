# Signed bundles: export --sign writes manifest.json.sig that the openssl command line accepts;
# verify-bundle checks files, counts, record digests, the signature and repair commitments; then every file
# of a signed member bundle gets one flipped byte in turn and verify-bundle never passes it.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out pub.pem
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out other_pub.pem

expect_status 0 "$FAILMAP" import "$SRC/cases/"
ncases=$(ls "$SRC"/cases/*.json | wc -l)
checks_may_fail "$FAILMAP" -q run --all >/dev/null   # records every run of every case
expect_status 0 "$FAILMAP" export --format jsonl --tier member --sign key.pem --out member
expect_status 0 "$FAILMAP" export --format jsonl --tier open --sign key.pem --out open

for b in member open; do
  openssl pkeyutl -verify -rawin -pubin -inkey pub.pem -in $b/manifest.json -sigfile $b/manifest.json.sig >/dev/null ||
    fail "openssl does not accept $b/manifest.json.sig"
  if openssl pkeyutl -verify -rawin -pubin -inkey other_pub.pem -in $b/manifest.json -sigfile $b/manifest.json.sig >/dev/null 2>&1; then
    fail "openssl accepts $b's signature with another key"
  fi
  [ "$(stat -c %s $b/manifest.json.sig)" = 64 ] || fail "signature is not 64 raw bytes"
  (cd $b && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c $b"
  grep -q '  manifest.json.sig$' $b/SHA256SUMS || fail "SHA256SUMS does not list the signature"
done
# The manifest carries each data file's SHA-256, so the signature covers the records.
python3 - <<'PY' || fail "manifest sha256 does not match the files"
import hashlib, json
for b in ("member", "open"):
    m = json.load(open(b + "/manifest.json"))
    assert sorted(m["sha256"]) == m["files"] == ["cases.jsonl", "mechanisms.jsonl", "runs.jsonl"], m
    for f, h in m["sha256"].items():
        assert hashlib.sha256(open(b + "/" + f, "rb").read()).hexdigest() == h, (b, f)
PY
# Signed re-export: the same bytes (Ed25519 is deterministic, salts are stored).
expect_status 0 "$FAILMAP" export --format jsonl --tier member --sign key.pem --out member2
diff -r member member2 >/dev/null || fail "signed re-export differs"

expect_status 0 "$FAILMAP" verify-bundle member --pubkey pub.pem --open open
echo "$out" | grep -qx "verified member (member tier): 5 file(s), [0-9]* mechanism(s), $ncases case(s), $((ncases * 3)) run(s); signature valid; $ncases repair commitment(s) recomputed, $ncases matching open: everything matches" ||
  fail "verify-bundle summary: $out"
expect_status 0 "$FAILMAP" verify-bundle open --pubkey pub.pem
echo "$out" | grep -q "$ncases case(s), $((ncases * 2)) run(s); signature valid: everything matches" || fail "open summary: $out"
expect_status 0 "$FAILMAP" verify-bundle open
echo "$out" | grep -q "^verified open (open tier): .*; signature present, not checked (no --pubkey): everything matches$" ||
  fail "unchecked signature not said: $out"
# --require-signature: a signature that was not checked is not enough (exit 1, said first).
expect_status 1 "$FAILMAP" verify-bundle open --require-signature
tail -1 stdout.txt | grep -qx "signature not checked: open (open tier): 5 file(s), [0-9]* mechanism(s), $ncases case(s), $((ncases * 2)) run(s); signature present, not checked (no --pubkey) (--require-signature needs --pubkey): everything else matches" ||
  fail "--require-signature without --pubkey: $out"
expect_status 0 "$FAILMAP" verify-bundle open --require-signature --pubkey pub.pem
# Another valid signature (of another manifest) in its place: INVALID, said first.
cp -r open open_sig && cp member/manifest.json.sig open_sig/manifest.json.sig
python3 -c '
import hashlib, os
d = "open_sig"; names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest() + "  " + f + "\n" for f in names))'
expect_status 1 "$FAILMAP" verify-bundle open_sig --pubkey pub.pem
tail -1 stdout.txt | grep -q "^signature INVALID: open_sig (open tier): .*; signature INVALID: 1 mismatch(es)$" || fail "invalid signature summary: $out"
expect_status 0 "$FAILMAP" verify-bundle member --json --pubkey pub.pem
echo "$out" | python3 -c "import json,sys; r=json.load(sys.stdin); assert r['ok'] and r['signature']=='valid' and r['problems']==[] and r['cases']==$ncases, r" ||
  fail "verify-bundle --json: $out"

# Every file, one byte flipped (xor 0x01 in the middle): never exit 0; restored after each.
flipped=0
for f in member/*; do
  cp "$f" saved
  python3 - "$f" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); i = len(b) // 2; b[i] ^= 0x01; open(p, "wb").write(bytes(b))
PY
  set +e; "$FAILMAP" verify-bundle member --pubkey pub.pem --open open >stdout.txt 2>stderr.txt; st=$?; set -e
  [ $st = 1 ] || [ $st = 2 ] || fail "a flipped byte in $f: verify-bundle exited $st: $(cat stdout.txt stderr.txt)"
  name=$(basename "$f")
  case $name in
    SHA256SUMS) ;;
    *) grep -q "$name" stdout.txt stderr.txt || fail "a flipped byte in $f is not named: $(cat stdout.txt stderr.txt)" ;;
  esac
  mv saved "$f"
  flipped=$((flipped + 1))
done
[ $flipped = 6 ] || fail "expected 6 bundle files, flipped $flipped"
expect_status 0 "$FAILMAP" verify-bundle member --pubkey pub.pem --open open
# A changed commitment in the open bundle (files re-summed so only that remains): exit 1 naming the case.
cp -r open open_x
python3 - <<'PY'
import hashlib, json
lines = open("open_x/cases.jsonl", encoding="utf-8").read().splitlines()
c = json.loads(lines[0]); c["repair_commitment"] = "0" * 64; lines[0] = json.dumps(c, ensure_ascii=False, separators=(",", ":"))
open("open_x/cases.jsonl", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
rm open_x/manifest.json.sig
resum_bundle open_x
expect_status 1 "$FAILMAP" verify-bundle member --open open_x
first=$(head -1 open/cases.jsonl | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
echo "$out" | grep -q "^open_x/cases.jsonl:1: field 'repair_commitment': case $first: the member bundle's repair does not match the commitment the open tier published: expected 0000" ||
  fail "commitment mismatch not named: $out"
[ "$(echo "$out" | grep -c "field 'repair_commitment'")" = 1 ] || fail "more than the one commitment named: $out"

# Page exports are signed and verified the same way.
expect_status 0 "$FAILMAP" export --format pages --tier open --sign key.pem --out pages
openssl pkeyutl -verify -rawin -pubin -inkey pub.pem -in pages/manifest.json -sigfile pages/manifest.json.sig >/dev/null ||
  fail "openssl does not accept the page export's signature"
expect_status 0 "$FAILMAP" verify-bundle pages --pubkey pub.pem
# verify-bundle reads every page as import does: a table cell edited and the
# hashes redone is a mismatch, named by file, line and cell (the trial's page
# passed with "everything matches").
cp -r pages pages_x && rm pages_x/manifest.json.sig
sed -i '35s/^| single short | 0 | 1 | Failed |$/| single short | 1 | 1 | Failed |/' pages_x/FA-98921.txt
resum_bundle pages_x
expect_status 1 "$FAILMAP" verify-bundle pages_x
echo "$out" | grep -qF "pages_x/FA-98921.txt:35: section '1 / The failure', check 'single short', Actual: page says 1, computed 0" ||
  fail "an edited page cell was not found: $out"
# Signed bundles import like unsigned ones.
expect_status 0 "$FAILMAP" --db rt.db import member

# --pubkey on an unsigned bundle: said to be unsigned (not INVALID), exit 1 as for a bad signature.
expect_status 0 "$FAILMAP" export --format jsonl --out unsigned_b FA-98921
expect_status 1 "$FAILMAP" verify-bundle unsigned_b --pubkey pub.pem
echo "$out" | grep -q "^signature missing: unsigned_b (open tier): .*; signature absent (the bundle is not signed): 1 mismatch(es)$" ||
  fail "unsigned bundle summary: $out"
expect_status 1 "$FAILMAP" verify-bundle unsigned_b --pubkey pub.pem --json
echo "$out" | grep -q '"signature":"absent"' || fail "unsigned bundle --json: $out"
