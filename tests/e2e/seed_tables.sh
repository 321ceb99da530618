# Both observation tables of the published page FA-98921 are reproduced
# cell for cell, and the repair passes all seven checks.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
# The page's tables: the two blocks of lines starting with '|'.
awk '/^\| Boundary fixture/{n++} /^\|/{print > ("page_table_" n ".txt")}' "$SEED"
expect_status 1 "$FAILMAP" run FA-98921 --strategy broken --format table
diff page_table_1.txt stdout.txt || fail "broken table differs from the page"
expect_status 1 "$FAILMAP" run FA-98921 --strategy unsuccessful --format table
diff page_table_2.txt stdout.txt || fail "unsuccessful table differs from the page"
expect_status 0 "$FAILMAP" run FA-98921 --strategy repaired --format table
[ "$(grep -c '| Passed |' stdout.txt)" -eq 7 ] || fail "repaired does not pass all seven checks"
# The page's Exit lines: Exit 1 for both published sections.
[ "$(grep -c '^Exit 1' "$SEED")" -eq 2 ] || fail "seed page changed"
