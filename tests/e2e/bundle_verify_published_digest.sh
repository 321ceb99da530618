# verify-bundle on a bundle whose one published run digest was edited (not
# 64 lower-case hex, SHA256SUMS and manifest redone): the one true finding —
# the record's field, what was expected — is the whole report, exit 1 (the
# record fails the case schema; import refuses it, exit 2). Before, the case's
# runs were also reported as "not a case of this bundle" and an extra
# "cannot be verified" line followed.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
checks_may_fail "$FAILMAP" run FA-98921 >/dev/null
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out good FA-98921 FA-11135
rm -rf b && cp -r good b
python3 - <<'PY'
import json
lines = open("b/cases.jsonl", encoding="utf-8").read().splitlines()
ids = [json.loads(l)["id"] for l in lines]
assert ids == ["FA-11135", "FA-98921"], ids
c = json.loads(lines[1])
d = c["published"]["runs"][0]["digest"]
assert d == "d3953127d7246b718e7fc63ed5d9348feb644afacb10dd47339aaba00537157f", d
c["published"]["runs"][0]["digest"] = d.upper()
lines[1] = json.dumps(c, ensure_ascii=False, separators=(",", ":"))
open("b/cases.jsonl", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
resum_bundle b
# The bundle's three runs of FA-98921 are there (lines 1-3 of runs.jsonl).
[ "$(grep -c '"case":"FA-98921"' b/runs.jsonl)" = 3 ] || fail "runs of FA-98921: $(cat b/runs.jsonl)"
# Exit 1: the bundle was read and a check failed (not 2, which is for a
# bundle that cannot be read); the finding and the summary are the report on stdout.
expect_status 1 "$FAILMAP" verify-bundle b
[ -z "$err" ] || fail "verify-bundle printed an error: $err"
[ "$(printf '%s\n' "$out" | head -1)" = "b/cases.jsonl:2: field 'published.runs[0].digest': expected 64 lower-case hexadecimal digits (a SHA-256 value), got the string \"D3953127D7246B718E7FC63ED5D9348FEB644AFACB10DD47339AABA00\"..." ] ||
  fail "verify-bundle: $out"
[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] || fail "verify-bundle printed more than the finding and the summary: $out"
expect_status 1 "$FAILMAP" verify-bundle b --json
[ -z "$err" ] || fail "verify-bundle --json printed an error: $err"
python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
assert r["ok"] is False, r
p = r["problems"]
assert len(p) == 1, p
assert p[0]["kind"] == "input" and (p[0]["file"], p[0]["line"]) == ("b/cases.jsonl", 2), p
assert p[0]["message"].startswith("field 'published.runs[0].digest'"), p
PY
# The untouched bundle still verifies.
expect_status 0 "$FAILMAP" verify-bundle good
[ "$out" = "verified good (member tier): 4 file(s), 2 mechanism(s), 2 case(s), 3 run(s); signature absent; 2 repair commitment(s) recomputed: everything matches" ] ||
  fail "good bundle: $out"
