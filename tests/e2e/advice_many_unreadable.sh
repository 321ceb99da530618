# A command over every case stops at the first case holding a run whose stored values no longer decode. Its
# refusal says that other cases may hold such runs too and names the commands that mend them all at once
# (before: one case per refusal, so three damaged cases took three refusals and three `run`s to find).
# A command given case ids says nothing of other cases.
needs_repairs  # the damaged runs are repaired ones
expect_status 0 "$FAILMAP" -q import "$SRC/cases"
checks_may_fail "$FAILMAP" -q run --all >/dev/null
sqlite3 "$FAILMAP_DB" "UPDATE runs SET actuals = '[0, 2' WHERE strategy = 2 AND actuals IS NOT NULL AND case_id IN (SELECT id FROM cases ORDER BY id LIMIT 3)"
damaged=$(sqlite3 "$FAILMAP_DB" "SELECT group_concat(case_id, ' ') FROM (SELECT case_id FROM runs WHERE actuals = '[0, 2' ORDER BY case_id)")
set -- $damaged; [ $# = 3 ] || fail "damaged: '$damaged'"
first=$1
before=$(archive_state "$FAILMAP_DB")
others="Other cases may hold such runs too (\`failmap verify\` names every one): \`failmap run --all\` records every case's runs again, and \`failmap digest regenerate --discard-unreadable-runs\`, with no case ids, discards all such runs at once where \`run\` refuses a case as changed."
for cmd in "export --out b" "export --format tasks --out b" "export --format site --out b" \
           "split --ratios train=0.8,test=0.2 --out b"; do
  expect_status 2 "$FAILMAP" $cmd
  expect_error_mentions "case $first, repaired run actuals:1:6"
  expect_error_mentions "(the recorded run was changed after it was recorded: \`failmap run $first\` records the case's runs again). $others"
  [ ! -e b ] || fail "$cmd wrote b"
done
expect_status 2 "$FAILMAP" digest regenerate
expect_error_mentions "$others Nothing was written."
[ "$(archive_state "$FAILMAP_DB")" = "$before" ] || fail "a refusal changed the archive"

# With case ids: the case alone.
for cmd in "export $first --out b" "digest regenerate $first"; do
  expect_status 2 "$FAILMAP" $cmd
  case "$err" in *"Other cases may"*) fail "$cmd speaks of other cases: $err" ;; esac
done

# What it says holds: verify names the three, and one `run --all` mends them all.
expect_status 1 "$FAILMAP" verify
for id in $damaged; do grep -q "$id" stdout.txt || fail "verify does not name $id: $out"; done
checks_may_fail "$FAILMAP" -q run --all >/dev/null
expect_status 0 "$FAILMAP" verify
expect_status 0 "$FAILMAP" -q export --out b
