# A split that fails leaves nothing at --out: it writes into a hidden sibling folder and renames it
# into place only when complete (as export does). Exit 2, one error naming the case, archive unchanged.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" -q import "$SRC/cases/" >/dev/null
checks_may_fail "$FAILMAP" -q run --all >/dev/null   # records every run: FA-98921's fail, so exit 1
last=$(sqlite3 "$FAILMAP_DB" "SELECT max(id) FROM cases")
[ "$last" = FA-98921 ] || fail "the last case in id order is $last, not FA-98921"
no_leftovers() {  # nothing at $1, and no staging folder beside it
  [ ! -e "$1" ] || fail "a failed split left $1 behind: $(ls -la "$1")"
  ! ls -A "$(dirname "$1")" | grep -q 'failmap-' || fail "a failed split left a staging folder: $(ls -A "$(dirname "$1")")"
}
# broken SQL: a copy of the archive with one defect of the last case in id order, so that every other
# case's records were written before the split fails.
broken() {
  rm -f broken.db broken.db-wal broken.db-shm
  cp "$FAILMAP_DB" broken.db
  sqlite3 broken.db "$1"
  before=$(archive_state broken.db)
}

# While writing (the second pass): a recorded run whose stored actual values do not decode. Nothing is left
# at --out or beside it.
broken "UPDATE runs SET actuals = '[1' WHERE case_id = 'FA-98921' AND strategy = 1"
mkdir new
expect_status 2 "$FAILMAP" --db broken.db split --ratios train=0.8,test=0.2 --out new/o1
[ "$err" = "failmap: error: broken.db: case FA-98921, unsuccessful run actuals:1:3: expected ',' or ']' after an element, found the end of the text (the recorded run was changed after it was recorded: \`failmap run FA-98921\` records the case's runs again). Other cases may hold such runs too (\`failmap verify\` names every one): \`failmap run --all\` records every case's runs again, and \`failmap digest regenerate --discard-unreadable-runs\`, with no case ids, discards all such runs at once where \`run\` refuses a case as changed." ] ||
  fail "a run that does not decode: $err"
[ -z "$(ls -A new)" ] || fail "a failed split left something beside --out: $(ls -A new)"
# ... into an empty folder that was there: it stays, empty, with its mode.
mkdir o2 && chmod 750 o2
expect_status 2 "$FAILMAP" --db broken.db split --folds 2 --test-tier open --out o2
expect_error_mentions "case FA-98921, unsuccessful run actuals"
[ -d o2 ] && [ -z "$(ls -A o2)" ] && [ "$(stat -c %a o2)" = 750 ] || fail "a failed split changed o2: $(ls -la o2)"
no_leftovers o2/x
[ "$(archive_state broken.db)" = "$before" ] || fail "a failed split changed the archive"

# While writing: a case or run changed after it was digested is refused as
# export refuses it (split wrote it into the splits: a flipped exit status
# beside its observation, the README's edited expected value).
broken "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0"
expect_status 2 "$FAILMAP" --db broken.db split --ratios train=0.8,test=0.2 --out o5
[ "$err" = "failmap: error: broken.db: case FA-98921, broken run, field exit_status: 0, but its observation has \"passed\": false (exit_status 1): the run was changed after it was recorded. \`failmap run FA-98921\` records it again. Nothing was written." ] ||
  fail "split after an exit status edit: $err"
no_leftovers o5
broken "$(fixture_expected_sql broken.db FA-98921 0 4)"
expect_status 2 "$FAILMAP" --db broken.db split --folds 2 --out o6
expect_error_mentions "broken.db: case FA-98921, broken run: the stored digest "
expect_error_mentions "Nothing was written."
no_leftovers o6
[ "$(archive_state broken.db)" = "$before" ] || fail "a refused split changed the archive"

# While writing: a case column only the second pass reads (params).
broken "UPDATE cases SET params = '{\"N\": ' WHERE id = 'FA-98921'"
expect_status 2 "$FAILMAP" --db broken.db split --ratios train=0.8,test=0.2 --group-by content --out o3
[ "$(wc -l < stderr.txt)" = 1 ] || fail "more than one error line: $err"
expect_error_mentions "broken.db: case FA-98921, field params:"
no_leftovers o3

# While partitioning (the first pass): fixture values that do not decode, for split and split check.
broken "UPDATE cases SET fixture_values = '[[[1], 2' WHERE id = 'FA-98921'"
expect_status 2 "$FAILMAP" --db broken.db split --ratios train=0.8,test=0.2 --out o4
[ "$err" = "failmap: error: broken.db: case FA-98921, field fixture_values: expected a JSON array of [args, expected] pairs, got text that is not JSON, \"[[[1], 2\"" ] ||
  fail "fixtures that do not decode: $err"
no_leftovers o4
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --out good
expect_status 2 "$FAILMAP" --db broken.db split check good
[ "$err" = "failmap: error: broken.db: case FA-98921, field fixture_values: expected a JSON array of [args, expected] pairs, got text that is not JSON, \"[[[1], 2\"" ] ||
  fail "split check, fixtures that do not decode: $err"
[ "$(archive_state broken.db)" = "$before" ] || fail "a failed split changed the archive"

# The good archive splits into the same empty folder, which keeps its mode; no staging folder is left.
expect_status 0 "$FAILMAP" split --folds 2 --test-tier open --out o2
[ "$(stat -c %a o2)" = 750 ] || fail "o2 lost its mode: $(stat -c %a o2)"
(cd o2 && sha256sum -c --quiet SHA256SUMS) || fail "o2 is not a complete split folder"
[ "$(LC_ALL=C ls o2 | tr '\n' ' ')" = "SHA256SUMS assignments.jsonl fold-1.jsonl fold-2.jsonl manifest.json " ] ||
  fail "o2 files: $(ls o2)"
[ -z "$(ls -A . | grep failmap-)" ] || fail "staging folders left after successful splits: $(ls -A)"
