# instantiate says when a variant it creates has the same content (the same
# checks, case_content_digest) as a case already in the archive: on stderr and
# in --json. Before, N = 1 silently duplicated each shipped case of N = 1.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=1..3
[ "$err" = "failmap: note: V-gradient-accumulation-weighting-1 has the same content (the same checks) as FA-98921, already in the archive (\`failmap remove V-gradient-accumulation-weighting-1\` takes it out; split --group-by content keeps them on one side)" ] ||
  fail "instantiate note: $err"
# Python's view of the same question: the variant's checks are FA-98921's.
"$FAILMAP" show V-gradient-accumulation-weighting-1 --json >v1.json
python3 - v1.json "$SRC/cases/FA-98921.json" <<'PY' || fail "the variant is not a duplicate of FA-98921"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert [[f["args"], f["expected"]] for f in a["fixtures"]] == [[f["args"], f["expected"]] for f in b["fixtures"]]
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
