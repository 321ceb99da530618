# failmap list --mechanism M --tier T --group G: each filter keeps the cases
# matching one of its values; filters combine (AND). An unknown mechanism,
# tier or evaluation_group is refused (exit 2), not an empty list.
"$FAILMAP" -q import "$SRC/cases" >/dev/null
python3 - "$SRC/cases/FA-11135.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["tier"] = "member"; c["id"] = "FA-11136"
json.dump(c, open("member.json", "w"))
PY
"$FAILMAP" -q import member.json >/dev/null
"$FAILMAP" -q instantiate padded-token-loss-mean --param N=2 >/dev/null
ids() { printf '%s\n' "$out" | python3 -c 'import json,sys; print(" ".join(json.loads(l)["id"] for l in sys.stdin))'; }

expect_status 0 "$FAILMAP" list --json --mechanism padded-token-loss-mean
want=$(cd "$SRC/cases" && python3 -c '
import glob, json
print(" ".join(sorted([json.load(open(f))["id"] for f in glob.glob("*.json") if json.load(open(f))["mechanism"] == "padded-token-loss-mean"] + ["FA-11136", "V-padded-token-loss-mean-2"])))')
[ "$(ids)" = "$want" ] || fail "--mechanism: $(ids), expected $want"
expect_status 0 "$FAILMAP" list --json --tier member
[ "$(ids)" = "FA-11136" ] || fail "--tier member: $(ids)"
expect_status 0 "$FAILMAP" list --json --mechanism padded-token-loss-mean --tier open --group loss-normalization
[ "$(ids)" = "$(echo "$want" | sed 's/FA-11136 //')" ] || fail "three filters: $(ids)"
expect_status 0 "$FAILMAP" list --json --group ema --group lr-schedule
want=$(cd "$SRC/cases" && python3 -c '
import glob, json
print(" ".join(sorted(json.load(open(f))["id"] for f in glob.glob("*.json") if {"ema", "lr-schedule"} & set(json.load(open(f))["evaluation_group"]))))')
[ "$(ids)" = "$want" ] && [ -n "$want" ] || fail "--group ema --group lr-schedule: $(ids), expected $want"
expect_status 0 "$FAILMAP" list --mechanism ema-bias-correction --tier member
[ "$out" = "CASE        MECHANISM                               VAR   TIER    BINDING     RUNS
0 case(s) of 0 mechanism(s)" ] || fail "no match, text: $out"

expect_status 2 "$FAILMAP" list --mechanism padded-token-loss
expect_error_mentions "--mechanism: unknown mechanism 'padded-token-loss' (see \`failmap mechanisms\`)"
expect_status 2 "$FAILMAP" list --tier members
expect_error_mentions "--tier: "
expect_status 2 "$FAILMAP" list --group loss
expect_error_mentions "--group: no mechanism declares evaluation_group 'loss' and no case of $FAILMAP_DB carries it"
[ -z "$out" ] || fail "a refused list printed: $out"
