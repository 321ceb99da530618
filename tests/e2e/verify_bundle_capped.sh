# verify-bundle of a bundle whose cases.jsonl was rewritten: the file's SHA-256 mismatches, then the findings of
# the cases that differ, at most 10 per file, then one line with the count of the others; --json lists every one.
# Before: a line per changed record (a sed over every title printed 90 lines of case_digest mismatches).
needs_repairs  # the open build exports no archive (it cannot commit to the repairs)
"$FAILMAP" -q import "$SRC/cases/"
"$FAILMAP" -q export --out good

# One case edited: its finding alone, no count line.
cp -r good one
python3 - <<'PY'
import json
p = "one/cases.jsonl"; lines = open(p, encoding="utf-8").read().split("\n")
j = json.loads(lines[3]); j["title"] = "edited"; lines[3] = json.dumps(j, ensure_ascii=False, separators=(",", ":"))
open(p, "w", encoding="utf-8").write("\n".join(lines))
PY
id4=$(sed -n 4p good/cases.jsonl | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
expect_status 1 "$FAILMAP" verify-bundle one
[ "$(wc -l < stdout.txt)" = 4 ] || fail "one edited case: $out"
[ "$(grep -c '^one/cases.jsonl:' stdout.txt)" = 1 ] || fail "one edited case, not one finding: $out"
grep -qF "one/cases.jsonl:4: field 'case_digest': case $id4: differs from the digest of the record and its runs" stdout.txt ||
  fail "the edited case is not named: $out"
! grep -q "more mismatch" stdout.txt || fail "a count line for one finding: $out"

# Every title edited: 10 findings shown, the rest counted, the total in the summary; --json has them all.
cp -r good all
sed -i 's/"title":"/"title":"X/' all/cases.jsonl
expect_status 1 "$FAILMAP" verify-bundle all
[ "$(grep -c "^all/cases.jsonl:[0-9]*: field 'case_digest'" stdout.txt)" = 10 ] || fail "not 10 findings shown: $out"
grep -qxF "all/cases.jsonl: $((SHIPPED - 10)) more mismatch(es) at its lines, $SHIPPED in all (--json lists every one)" stdout.txt ||
  fail "no count line: $out"
[ "$(wc -l < stdout.txt)" = 14 ] || fail "verify-bundle all printed $(wc -l < stdout.txt) lines: $out"
tail -1 stdout.txt | grep -q ": $((SHIPPED + 2)) mismatch(es)$" || fail "the summary does not count every mismatch: $out"
expect_status 1 "$FAILMAP" verify-bundle all --json
python3 -c 'import json, sys
r = json.load(open("stdout.txt"))
n = sum(1 for p in r["problems"] if p["file"] == "all/cases.jsonl" and p["field"] == "case_digest")
assert n == int(sys.argv[1]) and len(r["problems"]) == n + 2, (n, len(r["problems"]))' "$SHIPPED" ||
  fail "--json does not list every mismatch"
