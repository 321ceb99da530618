# verify / digest regenerate on unusable input: one clear message, exit 2,
# nothing written.
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
"$FAILMAP" run FA-98921 >/dev/null || true
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1" && before=$(archive_state t.db); }
unchanged() { [ "$(archive_state t.db)" = "$before" ] || fail "a refused command changed the archive"; }

# Digests are 32-byte BLOBs (schema/005_compact_runs.sql): the schema refuses
# anything else, and verify names a wrong one that got past the CHECK anyway.
rm -f t.db t.db-wal t.db-shm && cp clean.db t.db
sqlite3 t.db "UPDATE runs SET digest = X'0102' WHERE strategy = 0" 2>/dev/null && fail "the schema stored a 2-byte run digest"
sqlite3 t.db "UPDATE runs SET digest = 'XYZ' WHERE strategy = 0" 2>/dev/null && fail "the schema stored a text run digest"
sqlite3 t.db "UPDATE case_digests SET digest = X'0102'" 2>/dev/null && fail "the schema stored a 2-byte case digest"
fresh "PRAGMA ignore_check_constraints = ON; UPDATE runs SET digest = X'0102' WHERE strategy = 0"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "case FA-98921, field broken run digest: '0102' is not a SHA-256 digest (32 bytes)"
unchanged
fresh "PRAGMA ignore_check_constraints = ON; UPDATE case_digests SET digest = CAST(substr(digest, 1, 31) AS BLOB)"
expect_status 2 "$FAILMAP" --db t.db verify --json
expect_error_mentions "field case_digest:"
expect_error_mentions "is not a SHA-256 digest (32 bytes)"
[ -z "$out" ] || fail "verify printed a report on unusable input: $out"
unchanged
fresh "PRAGMA ignore_check_constraints = ON; UPDATE case_digests SET digest = zeroblob(33)"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "field case_digest:"
# Field digests are read when the case digest differs (to name the field).
fresh "PRAGMA ignore_check_constraints = ON; UPDATE cases SET field_digests = X'1234'; UPDATE case_texts SET summary = 'edited'"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "case FA-98921, field field_digests: expected 8 SHA-256 digests (256 bytes), got 2 bytes"

fresh "UPDATE runs SET actuals = NULL, observation = '{\"observations\": [' WHERE strategy = 2"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "case FA-98921, repaired run observation:1:"
expect_error_mentions "(the observation is not valid JSON)"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "repaired run observation:1:"
unchanged
# Stored actual values that are no JSON list.
fresh "UPDATE runs SET actuals = '[0, 2' WHERE strategy = 2"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "case FA-98921, repaired run actuals:1:"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest regenerate
expect_error_mentions "case FA-98921, repaired run actuals:1:"
unchanged
fresh "$(fixture_expected_sql clean.db FA-98921 0 three)"
expect_status 2 "$FAILMAP" --db t.db verify
expect_error_mentions "fixture 'short final batch' field expected"
unchanged

expect_status 2 "$FAILMAP" --db t.db verify FA-00000
expect_error_mentions "unknown case 'FA-00000'"
expect_status 2 "$FAILMAP" --db t.db digest regenerate FA-00000
expect_error_mentions "unknown case 'FA-00000'"
unchanged
expect_status 2 "$FAILMAP" --db t.db digest
