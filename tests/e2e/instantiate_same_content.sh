# instantiate says when a variant it creates has the same content (the same
# checks, case_content_digest) as a case already in the archive: on stderr and
# in --json. Before, N = 1 silently duplicated each shipped case of N = 1.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..3
# The shipped FA-98921 is N = 1 and FA-58566 is N = 3: one note each, in id order.
[ "$err" = "failmap: note: V-gradient-accumulation-weighting-1 has the same content (the same checks) as FA-98921, already in the archive (\`failmap remove V-gradient-accumulation-weighting-1\` takes it out; split --group-by content keeps them on one side)
failmap: note: V-gradient-accumulation-weighting-3 has the same content (the same checks) as FA-58566, already in the archive (\`failmap remove V-gradient-accumulation-weighting-3\` takes it out; split --group-by content keeps them on one side)" ] ||
  fail "instantiate note: $err"
# Python's view of the same question: the variants' checks are FA-98921's and
# FA-58566's, and V-2's are no shipped case's (no note for it).
for n in 1 2 3; do "$FAILMAP" show V-gradient-accumulation-weighting-$n --json >v$n.json; done
python3 - "$SRC/cases" <<'PY' || fail "the variants' duplicates are not FA-98921 and FA-58566"
import glob, json, os, sys
checks = lambda c: [[f["args"], f["expected"]] for f in c["fixtures"]]
shipped = [json.load(open(f)) for f in glob.glob(os.path.join(sys.argv[1], "*.json"))]
same = {n: sorted(c["id"] for c in shipped if checks(c) == checks(json.load(open("v%d.json" % n)))) for n in (1, 2, 3)}
assert same == {1: ["FA-98921"], 2: [], 3: ["FA-58566"]}, same
PY
# Again: the variants exist unchanged, nothing is created, nothing said.
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..3 --json
[ -z "$err" ] || fail "an unchanged variant was reported: $err"
printf '%s\n' "$out" | grep -q '"unchanged":3,.*"same_content":\[\]}$' || fail "instantiate --json again: $out"
# Another prefix at N = 1: the same checks as FA-98921 and the V- variant.
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..2 --id-prefix W --json
printf '%s\n' "$out" | grep -q '"same_content":\[{"id":"W-gradient-accumulation-weighting-1","same_content_as":\["FA-98921","V-gradient-accumulation-weighting-1"\]},{"id":"W-gradient-accumulation-weighting-2","same_content_as":\["V-gradient-accumulation-weighting-2"\]}\]}$' ||
  fail "instantiate --json same_content: $out"
expect_error_mentions "failmap: note: W-gradient-accumulation-weighting-2 has the same content (the same checks) as V-gradient-accumulation-weighting-2, already in the archive"
# Into an empty archive: nothing to repeat.
expect_status 0 "$FAILMAP" --db fresh.db instantiate gradient-accumulation-weighting --param N=1..2
[ -z "$err" ] || fail "instantiate into an empty archive said: $err"
# Many duplicates: stderr names 10 variants, 3 cases each, then counts the
# rest; --json still lists every one. Prefixes A..E at N = 1..12 each repeat
# the variants before them: N = 1 is also FA-98921, V- and W-; N = 2 V- and W-;
# N = 3 FA-58566 and V-.
for p in A B C D; do "$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..12 --id-prefix $p >/dev/null 2>&1; done
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..12 --id-prefix E
[ "$(printf '%s\n' "$err" | wc -l)" = 11 ] || fail "instantiate: $(printf '%s\n' "$err" | wc -l) note lines, want 11: $err"
expect_error_mentions "failmap: note: E-gradient-accumulation-weighting-1 has the same content (the same checks) as A-gradient-accumulation-weighting-1, B-gradient-accumulation-weighting-1, C-gradient-accumulation-weighting-1 and 4 other case(s), already in the archive"
expect_error_mentions "failmap: note: 2 more new variant(s) have the same content as a case already in the archive (\`--json\` lists them all under same_content)"
"$FAILMAP" -q remove $(printf 'E-gradient-accumulation-weighting-%d ' $(seq 1 12)) >/dev/null
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..12 --id-prefix E --json
python3 -c '
import json, sys
s = json.loads(sys.argv[1])["same_content"]
assert [x["id"] for x in s] == ["E-gradient-accumulation-weighting-%d" % n for n in range(1, 13)], s
assert [len(x["same_content_as"]) for x in s] == [7, 6, 6] + [4] * 9, s
' "$out" || fail "instantiate --json same_content after many: $out"
