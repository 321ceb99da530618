# failmap migrate: a version-6 archive (the released migrations 001-006 and
# rows in that shape) is refused by read-only commands, which name the
# command; `migrate` brings it to the current version once and then says
# there is nothing to do; the cases read back and verify clean.
"$FAILMAP" --db new.db import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json" >/dev/null
for f in "$SRC"/schema/00[1-6]_*.sql; do sqlite3 old.db <"$f"; done
cols="id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, published_case_digest, field_digests, fixture_labels, fixture_values"
sqlite3 old.db "ATTACH 'new.db' AS n;
  INSERT INTO mechanisms SELECT * FROM n.mechanisms;
  INSERT INTO cases($cols) SELECT $cols FROM $(v6_cases n);
  INSERT INTO published_runs SELECT * FROM n.published_runs;
  INSERT INTO repair_salts SELECT case_id, salt, commitment FROM n.repair_salts;
  INSERT INTO case_digests SELECT * FROM n.case_digests;
  PRAGMA user_version = 6;"
current=$(sqlite3 new.db "PRAGMA user_version")

expect_status 2 "$FAILMAP" --db old.db list
expect_error_mentions "old.db: archive schema version 6 needs migration to $current; run \`failmap migrate\` once (it writes)"
expect_status 0 "$FAILMAP" --db old.db migrate
[ "$out" = "migrated old.db from schema version 6 to $current" ] || fail "migrate said: $out"
[ "$(sqlite3 old.db "PRAGMA user_version")" = "$current" ] || fail "schema version not recorded"
expect_status 0 "$FAILMAP" --db old.db migrate --json
[ "$out" = "{\"archive\":\"old.db\",\"from\":$current,\"to\":$current}" ] || fail "migrate --json said: $out"
expect_status 0 "$FAILMAP" --db old.db migrate
[ "$out" = "old.db: already at schema version $current; nothing to do" ] || fail "second migrate said: $out"
expect_status 0 "$FAILMAP" --db old.db verify
expect_status 0 "$FAILMAP" --db old.db list
[ "$(echo "$out" | grep -c '^FA-')" = 2 ] || fail "the two cases are not listed: $out"
# Not archives: nothing is created or written.
expect_status 2 "$FAILMAP" --db missing.db migrate
[ ! -e missing.db ] || fail "migrate created an archive"
: >empty.db
expect_status 2 "$FAILMAP" --db empty.db migrate
expect_error_mentions "empty.db: not a failmap archive (schema version 0: an empty file or another program's database)"
[ ! -s empty.db ] || fail "migrate wrote to an empty file"
