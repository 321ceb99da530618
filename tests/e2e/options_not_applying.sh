# An option the chosen mode does not use is refused (exit 2, one line naming it, nothing written), never
# ignored. Before: `split --input … --test-tier X` exited 0 (even for --test-tier bogus), `--group-by tags`
# with --input and every split option given to `split check` were ignored, `verify CASE --jobs 4` verified
# on one thread.
"$FAILMAP" -q import "$SRC/cases/" >/dev/null
printf '{"id":"a","g":"A"}\n{"id":"b","g":"B"}\n' > items.jsonl
split_in() { "$FAILMAP" split --input items.jsonl --group-field g --ratios x=0.5,y=0.5 --out out "$@"; }
# refused WANT_LINE CMD...: exit 2, stderr exactly WANT_LINE, nothing at out/.
refused() {
  local want=$1; shift
  expect_status 2 "$@"
  [ "$err" = "$want" ] || fail "'$*' said: $err
expected: $want"
  [ ! -e out ] || fail "'$*' wrote out/"
}
tier="failmap: error: --test-tier: not with --input, whose lines are written as they are (the tier of records applies to the archive's cases)"
refused "$tier" split_in --test-tier open
refused "$tier" split_in --test-tier member
refused "$tier" split_in --test-tier bogus
group_by="failmap: error: --group-by: not with --input, whose items are linked by their --group-field values (--group-by tags or content groups the archive's cases)"
refused "$group_by" split_in --group-by tags
refused "$group_by" split_in --group-by content
expect_status 0 split_in  # the same split without them
rm -r out
# --group-field without --input (already refused), for completeness of the table.
refused "failmap: error: --group-field needs --input ITEMS.jsonl" "$FAILMAP" split --ratios x=0.5,y=0.5 --group-field g --out out

# `split check DIR` audits a folder: the options of a split, before or after `check`, are refused.
mkdir chk && printf '{"id":"a"}\n' > chk/train.jsonl
for opt in "--seed 3" "--stable" "--ratios x=0.5,y=0.5" "--folds 2" "--out o" "--group-by content" "--test-tier open"; do
  name=${opt%% *}
  refused "failmap: error: $name: an option of \`split\`, not of \`split check DIR\`, which takes --input, --group-field and --json after \`check\`" \
    "$FAILMAP" split $opt check chk --input items.jsonl --group-field g
  refused "failmap: error: $name: an option of \`split\`, not of \`split check DIR\`, which takes --input, --group-field and --json after \`check\`" \
    "$FAILMAP" split check chk --input items.jsonl --group-field g $opt
done
refused "failmap: error: --json: an option of \`split\`, not of \`split check DIR\`, which takes --input, --group-field and --json after \`check\`" \
  "$FAILMAP" split --json check chk --input items.jsonl --group-field g
expect_status 0 "$FAILMAP" split check chk --input items.jsonl --group-field g --json
[ "${out:0:13}" = '{"clean":true' ] || fail "split check --json: $out"

# verify: --jobs spreads the verification of every case; named cases are verified one at a time.
refused "failmap: error: --jobs: only when verifying every case (no CASE named)" "$FAILMAP" verify FA-98921 --jobs 2
expect_status 0 "$FAILMAP" verify --jobs 2
expect_status 0 "$FAILMAP" verify FA-98921

# run keeps refusing the options of its other form (tests/e2e/cli_usage.sh has the words).
expect_status 2 "$FAILMAP" run --all --strategy broken
expect_status 2 "$FAILMAP" run FA-98921 --jobs 2
