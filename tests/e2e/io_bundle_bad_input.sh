# Bad bundles: each refused with file and location, exit 2, archive exactly as before.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$(cases_dir)"
expect_status 1 "$FAILMAP" run FA-98921
expect_status 0 "$FAILMAP" export --format jsonl --tier member FA-98921 --out good
rm "$FAILMAP_DB"*
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=7
before=$(archive_state)

# resum: rewrite SHA256SUMS and the manifest's counts so only the defect under test remains.
resum() { resum_bundle "$1"; }
mk() { rm -rf "$1"; cp -r good "$1"; }
refused() {  # refused DIR TEXT...
  local dir=$1; shift
  expect_status 2 "$FAILMAP" import "$dir"
  for t in "$@"; do expect_error_mentions "$t"; done
  [ "$(archive_state)" = "$before" ] || fail "refused bundle $dir changed the archive"
}

# A malformed line: line and column.
mk syntax; sed -i '1s/"variant":1,/"variant":1,,/' syntax/cases.jsonl; resum syntax
refused syntax "syntax/cases.jsonl:1:"
grep -q "syntax/cases.jsonl:1:[0-9]*: expected a member name in double quotes, found \",\\\\\"title" stderr.txt ||
  fail "no line:column, or not what was expected and found: $err"
# One fault, one error: the unreadable line is not reported again as a
# shortfall of the manifest's case count, nor are the bundle's three runs of
# that case as runs without a case (one error line, ending with the total).
grep -q "counts" stderr.txt && fail "a malformed line was also reported as a count mismatch: $err"
[ "$(grep -c "^failmap: error:" stderr.txt)" = 1 ] || fail "expected one error for one fault: $(cat stderr.txt)"
# A line cut inside a long string (a truncated download): the error locates
# the string that is not closed and quotes its first bytes, not the whole
# string so far.
mk cut; python3 - cut/cases.jsonl <<'PY'
import sys
p = sys.argv[1]; s = open(p).read(); at = s.index('remain t', s.index('"scope"')) + len('remain t')
open(p, "w").write(s[:at])
PY
resum cut
refused cut "cut/cases.jsonl:1:"
grep -qF "a string that is not closed before the end of the text (it starts \"Inputs are scalar or sho\"...) (nothing was imported)" stderr.txt ||
  fail "a cut line: $(cat stderr.txt)"
[ "$(wc -c < stderr.txt)" -lt 300 ] || fail "a cut line's error quotes too much: $(cat stderr.txt)"

# A UTF-8 BOM at the start and CRLF line ends: accepted (BOM never stored).
mk bom; printf '\xEF\xBB\xBF' | cat - good/cases.jsonl > bom/cases.jsonl; sed -i 's/$/\r/' bom/runs.jsonl; resum bom
expect_status 0 "$FAILMAP" --db bom.db import bom
expect_status 0 "$FAILMAP" --db bom.db export --format jsonl --tier member --out bom_rt
diff good/cases.jsonl bom_rt/cases.jsonl || fail "BOM/CRLF bundle did not import to the same content"
[ "$(sqlite3 bom.db "select count(*) from cases where id like char(65279)||'%'")" = 0 ] || fail "BOM stored"

# Invalid UTF-8, duplicate keys, NaN, Infinity, an integer beyond int64.
mk utf8; sed -i '1s/"title":"The/"title":"\xff The/' utf8/cases.jsonl; resum utf8
refused utf8 "utf8/cases.jsonl:1:" "invalid UTF-8"
mk dup; sed -i '1s/"variant":1,/"variant":1,"variant":1,/' dup/cases.jsonl; resum dup
refused dup "dup/cases.jsonl:1: duplicate key \"variant\""
mk nan; sed -i '1s/"params":{"N":1}/"params":{"N":NaN}/' nan/cases.jsonl; resum nan
refused nan "nan/cases.jsonl:1:"
mk inf; sed -i '1s/"params":{"N":1}/"params":{"N":Infinity}/' inf/cases.jsonl; resum inf
refused inf "inf/cases.jsonl:1:"
mk big; sed -i '1s/"params":{"N":1}/"params":{"N":99999999999999999999}/' big/cases.jsonl; resum big
refused big "big/cases.jsonl:1: integer 99999999999999999999 exceeds int64"
# A case id with '/', '..' (ids become file names on export).
mk slash; sed -i '1s/"id":"FA-98921"/"id":"FA\/98921"/' slash/cases.jsonl; sed -i 's/"case":"FA-98921"/"case":"FA\/98921"/' slash/runs.jsonl; resum slash
refused slash "slash/cases.jsonl:1: field 'id'"
mk dots; sed -i '1s/"id":"FA-98921"/"id":"FA..98921"/' dots/cases.jsonl; resum dots
refused dots "dots/cases.jsonl:1: field 'id'"
mk nul; sed -i '1s/"id":"FA-98921"/"id":"FA\\u00009"/' nul/cases.jsonl; resum nul
refused nul "nul/cases.jsonl:1: field 'id'"

# SHA256SUMS or manifest that do not match the files.
mk sums; sed -i '1s/"variant":1/"variant":2/' sums/cases.jsonl
refused sums "sums/SHA256SUMS:1: 'cases.jsonl': SHA-256 does not match"
# The files are hashed while the records are read: damage that also breaks a
# line is reported as the hash mismatch alone (manifest and SHA256SUMS), not
# again as the line's syntax error or the counts it then misses.
mk torn; sed -i '1s/"variant":1,/"variant":1,,/' torn/cases.jsonl
refused torn "torn/manifest.json: field 'sha256.cases.jsonl': SHA-256 of 'cases.jsonl' does not match" \
  "torn/SHA256SUMS:1: 'cases.jsonl': SHA-256 does not match"
grep -q "torn/cases.jsonl:1:" stderr.txt && fail "a line of a file whose hash fails was reported too: $(cat stderr.txt)"
[ "$(grep -c "^failmap: error:" stderr.txt)" = 3 ] || fail "expected the two hash errors and the total alone: $(cat stderr.txt)"
mk extra; echo '{}' > extra/extra.jsonl
refused extra "extra/extra.jsonl: not listed in SHA256SUMS" "extra/extra.jsonl: not listed in manifest.json"
mk missing; rm missing/runs.jsonl
refused missing "'runs.jsonl' is missing from the folder"
mk counts; sed -i 's/"case":1/"case":2/' counts/manifest.json; resum counts
refused counts "counts/manifest.json: field 'counts.case': says 2, the bundle holds 1"
mk newer; sed -i 's/"format_version":3/"format_version":4/' newer/manifest.json; resum newer
refused newer "field 'format_version': 4 is newer than this failmap reads (3)"
mk lying; sed -i 's/"export_tier":"member"/"export_tier":"open"/' lying/manifest.json; resum lying
refused lying "lying/runs.jsonl:3: a repaired run in an open-tier bundle" "lying/mechanisms.jsonl:1: field 'strategies': differs"
mk digest; python3 - <<'PY'
import json
lines = open("digest/runs.jsonl").read().splitlines()
r = json.loads(lines[0]); r["observation"] = r["observation"].replace('"actual": 0', '"actual": 5', 1)
lines[0] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
open("digest/runs.jsonl", "w").write("\n".join(lines) + "\n")
PY
resum digest
refused digest "digest/runs.jsonl:1: field 'digest': is not the SHA-256 of the observation document"

# Forgeries with every hash redone (SHA256SUMS, manifest, the run's own
# digest): import makes the checks verify-bundle makes, so it refuses what
# verify-bundle rejects. The case digest covers the record and the bundle's
# runs; the member tier's repair must match its commitment.
mk forged_title; sed -i '1s/"title":"The final/"title":"A forged final/' forged_title/cases.jsonl; resum forged_title
refused forged_title "forged_title/cases.jsonl:1: field 'case_digest': case FA-98921: differs from the digest of the record and its runs"
mk forged_run; python3 - <<'PY'
import hashlib, json
lines = open("forged_run/runs.jsonl").read().splitlines()
r = json.loads(lines[0]); obs = json.loads(r["observation"])
obs["observations"][0]["actual"] = 3; obs["observations"][0]["passed"] = True  # the broken run "passes" a check
r["observation"] = json.dumps(obs, ensure_ascii=False)
r["digest"] = hashlib.sha256(r["observation"].encode()).hexdigest()
lines[0] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
open("forged_run/runs.jsonl", "w").write("\n".join(lines) + "\n")
PY
resum forged_run
# The run itself is replayed first: its edited value is named.
refused forged_run "forged_run/runs.jsonl:1: field 'observation.observations[0].actual': case FA-98921, broken run: not the run the compiled strategy gives over the case's fixtures (also observation.observations[0].passed: expected false, found true): expected 0, found 3"
mk forged_salt; sed -i '1s/"repair_salt":"[0-9a-f]*"/"repair_salt":"'"$(printf '0%.0s' $(seq 64))"'"/' forged_salt/cases.jsonl; resum forged_salt
refused forged_salt "forged_salt/cases.jsonl:1: field 'repair_commitment': case FA-98921: the repair does not match its commitment"
# The same forgery with the record's case_digest removed: a bundle case
# record without it (or without repair_commitment) is refused, as
# verify-bundle reports it (the re-trial's bypass).
drop_member() {  # drop_member FILE MEMBER: removes MEMBER from the top level of line 1's record
  python3 - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
r = json.loads(lines[0]); del r[sys.argv[2]]
if "title" in r: r["title"] = r["title"].replace("The final", "A forged final")
lines[0] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
}
mk nodigest; drop_member nodigest/cases.jsonl case_digest; resum nodigest
refused nodigest "nodigest/cases.jsonl:1: field 'case_digest': missing (every case record of a bundle carries it)"
mk nocommitment; drop_member nocommitment/cases.jsonl repair_commitment; resum nocommitment
refused nocommitment "nocommitment/cases.jsonl:1: field 'repair_commitment': missing (every case record of a bundle carries it)"
for b in forged_title forged_run forged_salt nodigest nocommitment; do
  expect_status 1 "$FAILMAP" verify-bundle "$b"   # the same bundles, as verify-bundle judges them
done
# A bundle without runs: its case digest is checked as the record arrives.
"$FAILMAP" --db norun.db import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" --db norun.db -q export --format jsonl --tier open --out norun 2>/dev/null
sed -i '1s/"title":"The final/"title":"A forged final/' norun/cases.jsonl; resum norun
refused norun "norun/cases.jsonl:1: field 'case_digest': case FA-98921: differs from the digest of the record and its runs"

# All errors of all inputs are reported, not just the first.
refused "dup" "dup/cases.jsonl:1"
expect_status 2 "$FAILMAP" import dup nan sums
expect_error_mentions "dup/cases.jsonl:1"; expect_error_mentions "nan/cases.jsonl:1"; expect_error_mentions "sums/SHA256SUMS:1"
[ "$(archive_state)" = "$before" ] || fail "archive changed"
# A refused import into a new archive leaves no archive file behind.
expect_status 2 "$FAILMAP" --db fresh.db import dup
[ ! -e fresh.db ] || fail "a refused import created fresh.db"
