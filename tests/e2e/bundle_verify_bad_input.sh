# verify-bundle on bad input: each defect named (file, line, field, expected, found) with the right exit status
# (1 the bundle was read and a check failed, 2 input that cannot be used at all), and nothing written anywhere.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
openssl pkey -in key.pem -pubout -out pub.pem
openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
openssl pkey -in other.pem -pubout -out other_pub.pem
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
expect_status 1 "$FAILMAP" run FA-98921
expect_status 0 "$FAILMAP" export --format jsonl --tier member --sign key.pem --out good
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out unsigned
before=$(archive_state)
mk() { rm -rf "$1"; cp -r good "$1"; }
state() { find . -path ./stdout.txt -prune -o -path ./stderr.txt -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum; }
# verdict WANT DIR ARGS... TEXT...: exit WANT, each TEXT on stdout or stderr, nothing written.
verdict() {
  local want=$1 dir=$2; shift 2
  local args=()
  while [ $# -gt 0 ] && [ "${1:0:2}" = "--" ]; do args+=("$1" "$2"); shift 2; done
  local files; files=$(state)
  expect_status "$want" "$FAILMAP" verify-bundle "$dir" "${args[@]}"
  for t in "$@"; do grep -qF -- "$t" stdout.txt stderr.txt || fail "verify-bundle $dir: '$t' not said: $out $err"; done
  [ "$(state)" = "$files" ] || fail "verify-bundle $dir wrote something"
}

# A missing signature, a wrong public key, an unusable key.
verdict 1 unsigned --pubkey pub.pem "unsigned/manifest.json.sig: missing: --pubkey was given but the bundle is not signed"
verdict 1 good --pubkey other_pub.pem "good/manifest.json.sig: not a valid signature of manifest.json: the signature does not verify with the public key other_pub.pem"
verdict 2 good --pubkey key.pem "key.pem: not a PEM public key"
verdict 2 good --pubkey nothere.pem "nothere.pem: cannot open"
verdict 2 unsigned --pubkey nothere.pem "nothere.pem: cannot open"
# A removed signature with SHA256SUMS still listing it.
mk nosig; rm nosig/manifest.json.sig
verdict 1 nosig --pubkey pub.pem "nosig/SHA256SUMS:3: 'manifest.json.sig' is missing from the folder" "nosig/manifest.json.sig: missing"
# A SHA256SUMS line for a missing file.
mk missing; rm missing/runs.jsonl
verdict 1 missing "missing/SHA256SUMS:5: 'runs.jsonl' is missing from the folder" "field 'files': lists 'runs.jsonl', which is not in the folder"
# An extra file.
mk extra; echo x > extra/notes.txt
verdict 1 extra "extra/notes.txt: not listed in SHA256SUMS" "extra/notes.txt: not listed in manifest.json"
# A manifest whose counts disagree with the records (everything re-summed, signature checked: it no longer verifies).
mk counts; sed -i 's/"run":3/"run":4/' counts/manifest.json; resum_bundle counts
verdict 1 counts "counts/manifest.json: field 'counts.run': disagrees with the records: expected 3, found 4"
[ "$(grep -c . stdout.txt)" = 2 ] || fail "counts: more than the one mismatch and the summary: $out"
verdict 1 counts --pubkey pub.pem "counts/manifest.json.sig: not a valid signature"
# A newer bundle format: unusable (exit 2), nothing else checked.
mk newer; sed -i 's/"format_version":3/"format_version":4/' newer/manifest.json; resum_bundle newer
verdict 2 newer "newer/manifest.json: field 'format_version': 4 is newer than this failmap reads (3); upgrade failmap"
# Not a bundle.
verdict 2 nowhere "nowhere: not a bundle folder"
mkdir empty; verdict 2 empty "empty/manifest.json: missing (not a bundle)"
# A changed observation, re-summed: the run digest and the case digest both named with both values.
mk obs; python3 - <<'PY'
import json
lines = open("obs/runs.jsonl").read().splitlines()
r = json.loads(lines[0]); r["observation"] = r["observation"].replace('"actual": 0', '"actual": 5', 1)
lines[0] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
open("obs/runs.jsonl", "w").write("\n".join(lines) + "\n")
PY
resum_bundle obs
verdict 1 obs "obs/runs.jsonl:1: field 'digest': is not the SHA-256 of the observation document: expected " \
  "found a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68" \
  "obs/cases.jsonl:1: field 'case_digest': case FA-98921: differs from the digest of the record and its runs: expected "
# A changed prose field: the case digest names it.
mk prose; sed -i '1s/"title":"The final/"title":"A final/' prose/cases.jsonl; resum_bundle prose
verdict 1 prose "prose/cases.jsonl:1: field 'case_digest': case FA-98921: differs"
# A changed salt: the commitment no longer matches the repair.
mk salt; python3 - <<'PY'
import json
lines = open("salt/cases.jsonl", encoding="utf-8").read().splitlines()
c = json.loads(lines[0]); s = c["repair_salt"]; c["repair_salt"] = ("1" if s[0] == "0" else "0") + s[1:]
lines[0] = json.dumps(c, ensure_ascii=False, separators=(",", ":"))
open("salt/cases.jsonl", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
resum_bundle salt
verdict 1 salt "salt/cases.jsonl:1: field 'repair_commitment': case FA-98921: the repair does not match its commitment"
# A line that is not JSON: the bundle was read and a check failed, exit 1
# (2 is for a bundle that cannot be read at all).
mk syntax; sed -i '1s/"variant":1,/"variant":1,,/' syntax/cases.jsonl; resum_bundle syntax
verdict 1 syntax "syntax/cases.jsonl:1:"
# --open with a member bundle as the "open" one.
verdict 2 good --open unsigned "unsigned/manifest.json: field 'export_tier': --open needs an open-tier bundle: expected open, found member"
# A manifest of none of its members: one error per member, each with what was found (export_tier was
# reported twice, missing and then as the unknown tier '').
mk nomembers; echo '{"x":1}' > nomembers/manifest.json
(cd nomembers && for f in *; do [ "$f" = SHA256SUMS ] || sha256sum "$f"; done > ../sums.tmp && mv ../sums.tmp SHA256SUMS)
expect_status 2 "$FAILMAP" verify-bundle nomembers
m="failmap: error: nomembers/manifest.json: field"
[ "$err" = "$m 'format': expected a string, got nothing (missing)
$m 'format_version': expected a positive integer, got nothing (missing)
$m 'failmap_version': expected a string, got nothing (missing)
$m 'export_tier': expected a string, got nothing (missing)
$m 'counts': expected an object, got nothing (missing)
$m 'files': expected an array of file names, got nothing (missing)
$m 'sha256': expected an object of file name: SHA-256 hex, got nothing (missing)" ] || fail "verify-bundle nomembers said: $err"
echo '{"format":"failmap-bundle","format_version":3,"failmap_version":"x","export_tier":7,"counts":[],"files":{},"sha256":1}' > nomembers/manifest.json
(cd nomembers && for f in *; do [ "$f" = SHA256SUMS ] || sha256sum "$f"; done > ../sums.tmp && mv ../sums.tmp SHA256SUMS)
expect_status 2 "$FAILMAP" verify-bundle nomembers
[ "$err" = "$m 'export_tier': expected a string, got the number 7
$m 'counts': expected an object, got an array
$m 'files': expected an array of file names, got an object
$m 'sha256': expected an object of file name: SHA-256 hex, got the number 1" ] || fail "verify-bundle nomembers (wrong types) said: $err"
[ "$(archive_state)" = "$before" ] || fail "the archive changed"
