# verify-bundle's problems give their place structurally and in one stream
# (three rules, one per numbered paragraph):
#  1. --json: a record line that is not JSON, a run record with a field of the
#     wrong type, a case record with one: "file", "line" (and "column",
#     "field" where the reader knows them) are filled, not left "" / 0 with
#     the place only inside "message";
#  2. a run whose exit_status contradicts its observation says what was found
#     and what the observation implies;
#  3. a bundle with a manifest mismatch and a bad record: every problem a
#     line of the report on stdout, or all inside the --json document.
# A bundle that was read and failed a check exits 1, unreadable records
# included (never 2 with the problems on stderr).
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out good

# edit_line DIR FILE N PYTHON_EXPR: line N (1-based) of DIR/FILE becomes the
# value of PYTHON_EXPR, in which `l` is the line as it was.
edit_line() {
  python3 - "$@" <<'PY'
import sys
d, f, n, expr = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lines = open(f"{d}/{f}", encoding="utf-8").read().splitlines()
l = lines[n - 1]
lines[n - 1] = eval(expr)
assert lines[n - 1] != l, "the edit changed nothing"
open(f"{d}/{f}", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
}

# json_problems: the last command's stdout (--json) as one line per problem,
# "kind|file|line|column|field|message|expected|found".
json_problems() {
  python3 -c '
import json, sys
for p in json.loads(sys.argv[1])["problems"]:
    print("|".join(str(p[k]) for k in ("kind", "file", "line", "column", "field", "message", "expected", "found")))
' "$out"
}

# 1. Unusable lines, the manifest's digests redone: each problem at its place.
rm -rf bad && cp -r good bad
edit_line bad runs.jsonl 3 '"not json"'
edit_line bad runs.jsonl 5 'l.replace("\"case\":\"FA-", "\"case\":7,\"x\":\"FA-", 1)'
edit_line bad cases.jsonl 2 'l.replace("\"variant\":", "\"variant\":\"2\",\"v\":", 1)'
resum_bundle bad
expect_status 1 "$FAILMAP" verify-bundle bad --json
[ "$(json_problems)" = "input|bad/runs.jsonl|3|1||expected a JSON value, found \"not json\"||
input|bad/runs.jsonl|5|0|x|not a run record field||
input|bad/runs.jsonl|5|0|case|expected a string, got the number 7||
input|bad/cases.jsonl|2|0||field 'variant': expected an integer, got the string \"2\"||
input|bad/cases.jsonl|2|0||field 'v': not a field of a failmap case (schema/case.schema.json lists them)||" ] || fail "verify-bundle bad --json: $(json_problems)"
# The text report: the place, then the message, one line each, then the summary.
expect_status 1 "$FAILMAP" verify-bundle bad
[ -z "$err" ] || fail "verify-bundle bad printed on stderr: $err"
[ "$(printf '%s\n' "$out" | sed '$d')" = "bad/runs.jsonl:3:1: expected a JSON value, found \"not json\"
bad/runs.jsonl:5: field 'x': not a run record field
bad/runs.jsonl:5: field 'case': expected a string, got the number 7
bad/cases.jsonl:2: field 'variant': expected an integer, got the string \"2\"
bad/cases.jsonl:2: field 'v': not a field of a failmap case (schema/case.schema.json lists them)" ] || fail "verify-bundle bad: $out"
printf '%s\n' "$out" | tail -1 | grep -q "^mismatch: bad (open tier): .*: 5 mismatch(es)$" || fail "verify-bundle bad summary: $out"

# 2. The first run (FA-11135, broken: exit 1, 5 of its 7 checks fail) says it passed.
rm -rf ex && cp -r good ex
edit_line ex runs.jsonl 1 'l.replace("\"exit_status\":1,", "\"exit_status\":0,", 1)'
resum_bundle ex
expect_status 1 "$FAILMAP" verify-bundle ex
[ "$(printf '%s\n' "$out" | head -1)" = "ex/runs.jsonl:1: field 'exit_status': disagrees with the observation's \"passed\" (false: 5 of 7 checks failed): expected 1, found 0" ] ||
  fail "verify-bundle ex: $out"
expect_status 1 "$FAILMAP" verify-bundle ex --json
[ "$(json_problems)" = "input|ex/runs.jsonl|1|0|exit_status|disagrees with the observation's \"passed\" (false: 5 of 7 checks failed)|1|0" ] ||
  fail "verify-bundle ex --json: $(json_problems)"
# import names the same values.
expect_status 2 "$FAILMAP" --db ex.db import ex
expect_error_mentions "ex/runs.jsonl:1: field 'exit_status': disagrees with the observation's \"passed\" (false: 5 of 7 checks failed): expected 1, found 0"

# 3. The same edit without redoing the digests: two manifest mismatches and
# the bad record, all three lines of the report on stdout, nothing on
# stderr, exit 1 (a file's SHA-256 mismatch is a failed check).
rm -rf both && cp -r good both
edit_line both runs.jsonl 1 'l.replace("\"exit_status\":1,", "\"exit_status\":0,", 1)'
expect_status 1 "$FAILMAP" verify-bundle both
[ -z "$err" ] || fail "verify-bundle both printed on stderr: $err"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] || fail "verify-bundle both: $out"
grep -qxF "both/manifest.json: field 'sha256.runs.jsonl': SHA-256 of 'runs.jsonl' does not match (file changed or corrupt): expected $(sha256sum good/runs.jsonl | cut -c1-64), found $(sha256sum both/runs.jsonl | cut -c1-64)" stdout.txt ||
  fail "verify-bundle both, manifest line: $out"
grep -qF "both/SHA256SUMS:4: 'runs.jsonl': SHA-256 does not match (file changed or corrupt)" stdout.txt || fail "verify-bundle both: $out"
grep -qF "both/runs.jsonl:1: field 'exit_status': disagrees with the observation's" stdout.txt || fail "verify-bundle both: $out"
expect_status 1 "$FAILMAP" verify-bundle both --json
[ -z "$err" ] || fail "verify-bundle both --json printed on stderr: $err"
[ "$(json_problems | cut -d'|' -f1-3,5)" = "mismatch|both/manifest.json|0|sha256.runs.jsonl
mismatch|both/SHA256SUMS|4|
input|both/runs.jsonl|1|exit_status" ] || fail "verify-bundle both --json: $(json_problems)"

# A mismatch alone is still the report on stdout, exit 1.
rm -rf one && cp -r good one
edit_line one runs.jsonl 1 'l.replace("\"exit_status\":1,", "\"exit_status\":1 ,", 1)'
expect_status 1 "$FAILMAP" verify-bundle one
[ -z "$err" ] || fail "verify-bundle one printed on stderr: $err"
[ "$(echo "$out" | grep -c 'SHA-256')" = 2 ] || fail "verify-bundle one: $out"
expect_status 0 "$FAILMAP" verify-bundle good
