# failmap split --ratios whose shares sum to within 0.001 of 1 but not to 1:
# the shares are divided by their sum (schema/SPLITS.md "Ratios"), and the CLI
# now says so in one stderr line (not with --quiet) and manifest.json (also
# the --json output) keeps the shares as given in "ratios_given".
printf '{"id":"a%d","g":"%d"}\n' 1 1 2 2 3 3 4 4 5 5 > items.jsonl
note='failmap: note: --ratios sum to 0.999, not 1; normalised to train=0.8008008008008008,test=0.1991991991991992'

expect_status 0 "$FAILMAP" split --input items.jsonl --group-field g --ratios train=0.8,test=0.199 --out text
[ "$err" = "$note" ] || fail "stderr: '$err'"
[ "$out" = 'split 5 item(s) in 5 unit(s) (largest 1) into 2 splits, seed 0, balanced
SPLIT   REQUESTED  ACHIEVED  ITEMS     UNITS
train   0.8008     0.8000    4         4
test    0.1992     0.2000    1         1
max deviation 0.08 pp (guaranteed below one largest unit: 20.00 pp)' ] || fail "report: $out"
grep -qF '"ratios":{"train":0.8008008008008008,"test":0.1991991991991992},"ratios_given":{"train":0.8,"test":0.199},"items":5' \
  text/manifest.json || fail "manifest.json: $(cat text/manifest.json)"
(cd text && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS"

# --json: the same note on stderr, and stdout is the manifest with ratios_given.
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field g --ratios train=0.8,test=0.199 --out json --json
[ "$err" = "$note" ] || fail "--json stderr: '$err'"
[ "$out" = "$(cat json/manifest.json)" ] || fail "--json stdout is not manifest.json: $out"
printf '%s\n' "$out" | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["ratios_given"] == {"train": 0.8, "test": 0.199}, m
assert m["ratios"] == {"train": 800000000 / 999000000, "test": 199000000 / 999000000}, m["ratios"]  # w_s / W
assert list(m).index("ratios_given") == list(m).index("ratios") + 1, list(m)
' || fail "--json ratios: $out"

# --quiet: no note on stderr; the report, on stdout, stays (--quiet quiets
# stderr only, never the report); the folder is the same.
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field g --ratios train=0.8,test=0.199 --out loud
report=$out
expect_status 0 "$FAILMAP" --quiet split --input items.jsonl --group-field g --ratios train=0.8,test=0.199 --out quiet
[ -z "$err" ] || fail "--quiet printed on stderr: '$err'"
[ -n "$out" ] && [ "$out" = "$report" ] || fail "--quiet changed the report: '$out', without it: '$report'"
cmp -s quiet/manifest.json text/manifest.json || fail "--quiet manifest differs"

# Over 1 as well, with three splits (0.3334 x3 = 1.0002 means thirds).
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field g --ratios a=0.3334,b=0.3334,c=0.3334 --out thirds
[ "$err" = 'failmap: note: --ratios sum to 1.0002, not 1; normalised to a=0.3333333333333333,b=0.3333333333333333,c=0.3333333333333333' ] ||
  fail "thirds stderr: '$err'"

# Shares summing to exactly 1: no note, no ratios_given.
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field g --ratios train=0.8,test=0.2 --out exact
[ -z "$err" ] || fail "exact ratios wrote '$err'"
! grep -q ratios_given exact/manifest.json || fail "exact ratios: $(cat exact/manifest.json)"
# Beyond the tolerance: still refused, nothing written.
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field g --ratios train=0.8,test=0.198 --out far
expect_error_mentions "--ratios: shares sum to 0.998; they must sum to 1 (within 0.001)"
[ ! -e far ] || fail "a refused split wrote a folder"
