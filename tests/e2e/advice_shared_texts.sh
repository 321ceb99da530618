# A changed text kept once for several cases (schema/007_case_texts.sql): `run`'s refusal names every case
# sharing the row, as `digest regenerate` requires (before: it named the case alone, and `digest regenerate
# FA-72068` refused, "they are kept once for cases FA-47572, FA-95949 too"). With a run that no longer
# reads as well, it names the discarding with the same cases. Following the advice as printed works.
needs_repairs  # the damaged run is the repaired one
expect_status 0 "$FAILMAP" -q import "$SRC/cases"
checks_may_fail "$FAILMAP" -q run --all >/dev/null
sharing=$(sqlite3 "$FAILMAP_DB" "SELECT group_concat(id, ' ') FROM (SELECT id FROM cases WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-72068') AND id != 'FA-72068' ORDER BY id)")
[ "$sharing" = "FA-47572 FA-95949" ] || fail "the shipped cases sharing FA-72068's texts: '$sharing'"
cp "$FAILMAP_DB" clean.db
edit="UPDATE case_texts SET summary = summary || ' (edited)' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-72068');"
# advised: the last `failmap ...` command of stderr but verify.
advised() { grep -o '`failmap [^`]*`' stderr.txt | grep -v '^`failmap verify' | tail -1 | tr -d '`'; }

sqlite3 "$FAILMAP_DB" "$edit"
expect_status 2 "$FAILMAP" run FA-72068
expect_error_mentions "\`failmap digest regenerate FA-72068 FA-47572 FA-95949\` accepts the change (its texts are kept once for FA-47572, FA-95949 too, so they are named with it). Nothing was recorded."
[ "$(advised)" = "failmap digest regenerate FA-72068 FA-47572 FA-95949" ] || fail "advised: $(advised)"
expect_status 0 "$FAILMAP" digest regenerate FA-72068 FA-47572 FA-95949
expect_status 1 "$FAILMAP" run FA-72068   # recorded; the broken strategy fails its checks
expect_status 0 "$FAILMAP" verify FA-72068 FA-47572 FA-95949

# A row field alone: the case alone is named.
cp clean.db "$FAILMAP_DB"; rm -f "$FAILMAP_DB-wal" "$FAILMAP_DB-shm"
sqlite3 "$FAILMAP_DB" "UPDATE cases SET params = '{\"N\": 2}' WHERE id = 'FA-72068'"
expect_status 2 "$FAILMAP" run FA-72068
[ "$(advised)" = "failmap digest regenerate FA-72068" ] || fail "advised for a row field: $(advised)"

# The text and a run that no longer reads: the discarding, with the same cases.
cp clean.db "$FAILMAP_DB"; rm -f "$FAILMAP_DB-wal" "$FAILMAP_DB-shm"
sqlite3 "$FAILMAP_DB" "$edit UPDATE runs SET actuals = '[0, 2' WHERE case_id = 'FA-72068' AND strategy = 2;"
before=$(archive_state "$FAILMAP_DB")
expect_status 2 "$FAILMAP" run FA-72068
[ "$(advised)" = "failmap digest regenerate --discard-unreadable-runs FA-72068 FA-47572 FA-95949" ] || fail "advised: $(advised)"
[ "$(archive_state "$FAILMAP_DB")" = "$before" ] || fail "a refused run changed the archive"
expect_status 0 "$FAILMAP" $(advised | sed 's/^failmap //')
expect_status 1 "$FAILMAP" run FA-72068
expect_status 0 "$FAILMAP" verify FA-72068 FA-47572 FA-95949

# export (each format, all cases or one) and split check the cases on worker threads, without the archive
# query that names the cases sharing a text: they too name them (before: `digest regenerate FA-47572`, the
# first case in id order sharing the row, which refuses).
cp clean.db "$FAILMAP_DB"; rm -f "$FAILMAP_DB-wal" "$FAILMAP_DB-shm"
sqlite3 "$FAILMAP_DB" "$edit"
before=$(archive_state "$FAILMAP_DB")
for cmd in "export --out b" "export --format pages --out b" "export --format tasks --out b" \
           "export --format site --out b" "split --ratios train=0.8,test=0.2 --out b"; do
  expect_status 2 "$FAILMAP" $cmd
  [ "$(advised)" = "failmap digest regenerate FA-47572 FA-72068 FA-95949" ] || fail "$cmd advised: $(advised)"
  [ ! -e b ] || fail "$cmd wrote b"
done
expect_status 2 "$FAILMAP" export FA-72068 --out b
[ "$(advised)" = "failmap digest regenerate FA-72068 FA-47572 FA-95949" ] || fail "export FA-72068 advised: $(advised)"
[ "$(archive_state "$FAILMAP_DB")" = "$before" ] || fail "a refused export changed the archive"
expect_status 0 "$FAILMAP" $(advised | sed 's/^failmap //')
expect_status 0 "$FAILMAP" -q export --out b
