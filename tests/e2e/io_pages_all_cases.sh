# Every case of cases/ renders as a page at both tiers that re-imports cleanly (no disagreement)
# and exports back to the same bytes.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$SRC/cases/"
n=$(ls "$SRC"/cases/*.json | wc -l)
for tier in open member; do
  expect_status 0 "$FAILMAP" export --format pages --tier $tier --out $tier
  [ "$(ls $tier/*.txt | wc -l)" = "$n" ] || fail "$tier: expected $n pages"
  expect_status 0 "$FAILMAP" --db $tier.db import $tier
  echo "$out" | grep -q "imported $n new case(s)" || fail "$tier pages did not all import: $out"
  expect_status 0 "$FAILMAP" --db $tier.db export --format pages --tier $tier --out ${tier}_again
  diff -r $tier ${tier}_again >/dev/null || fail "$tier pages changed through import and export"
done
