# A recorded run never re-digests a case changed outside failmap (sqlite3)
# since it was digested: `run CASE` and `run --all` check the case's fields
# against their stored field digests and refuse a changed one with one error
# naming the fields, exit 2, the archive as it was, so that `export` still
# refuses it too (before, the run re-stamped the case digest over the edited
# content and export then wrote a bundle that import refuses). Runs and the
# case digest are what a recording rewrites: a run of every strategy replaces
# an edited run, as run --all does; a run that keeps some runs (--strategy)
# also checks the stored case digest over the case and the runs it keeps.
# `digest regenerate` accepts a change, after which both record; `run
# --no-record` writes nothing and still evaluates the case as stored.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null
cp "$FAILMAP_DB" clean.db
fresh() { rm -f t.db t.db-wal t.db-shm && cp clean.db t.db && sqlite3 t.db "$1"; }
stored_case_digest() { sqlite3 t.db "SELECT lower(hex(digest)) FROM case_digests WHERE case_id = 'FA-98921'"; }
next_steps='`failmap verify FA-98921` names the difference; `failmap digest regenerate FA-98921` accepts the change. Nothing was recorded.'
changed() {  # changed "FIELDS" [s]: the error for those fields of FA-98921
  if [ "${2:-}" = s ]; then
    echo "failmap: error: t.db: case FA-98921: its fields $1 do not match the field digests the archive stores: the case was changed after it was digested. $next_steps"
  else
    echo "failmap: error: t.db: case FA-98921: its field $1 does not match the field digest the archive stores: the case was changed after it was digested. $next_steps"
  fi
}

# refused EXPECTED_STDERR CMD...: CMD exits 2 with exactly that error and t.db
# is unchanged; run CASE prints nothing on stdout (run --all streams the
# lines of the cases before).
refused() {
  local want=$1; shift
  local before; before=$(archive_state t.db)
  expect_status 2 "$@"
  [ "$err" = "$want" ] || fail "'$*' stderr:
$err
expected:
$want"
  [ "$(archive_state t.db)" = "$before" ] || fail "'$*' changed the archive"
  case " $* " in *" --all "*) ;; *) [ -z "$out" ] || fail "'$*' printed on stdout: $out" ;; esac
}

# 1. The binding (N 1 -> 2): every recorded form names the field.
fresh "UPDATE cases SET params = '{\"N\": 2}' WHERE id = 'FA-98921'"
refused "$(changed params)" "$FAILMAP" --db t.db run FA-98921
refused "$(changed params)" "$FAILMAP" --db t.db run FA-98921 --strategy broken
refused "$(changed params)" "$FAILMAP" --db t.db run --all
expect_status 2 "$FAILMAP" --db t.db export --out out1
expect_error_mentions "it was changed after it was digested"
# Nothing is recorded, so nothing is refused: the case is evaluated as stored.
expect_status 1 "$FAILMAP" --db t.db run FA-98921 --no-record --strategy broken
[ -n "$out" ] || fail "run --no-record printed nothing"
# digest regenerate accepts the edit; then both record, and export accepts.
"$FAILMAP" --db t.db digest regenerate FA-98921 >/dev/null
expect_status 1 "$FAILMAP" --db t.db run FA-98921
expect_status 0 "$FAILMAP" --db t.db run --all
expect_status 0 "$FAILMAP" --db t.db export --out out2

# 2. An expected value of a fixture, and a prose text of the shared
# case_texts row: both fields, in name order. The row is shared with
# FA-58566, the mechanism's second case, which run --all reaches first: its
# summary alone.
fresh "$(fixture_expected_sql clean.db FA-98921 2 7) UPDATE case_texts SET summary = summary || ' (edited)' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-98921');"
[ "$(sqlite3 t.db "SELECT group_concat(id, ', ') FROM (SELECT id FROM cases WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-98921') ORDER BY id)")" = "FA-58566, FA-98921" ] ||
  fail "cases sharing FA-98921's texts"
refused "failmap: error: t.db: case FA-58566: its field summary does not match the field digest the archive stores: the case was changed after it was digested. \`failmap verify FA-58566\` names the difference; \`failmap digest regenerate FA-58566 FA-98921\` accepts the change (its texts are kept once for FA-98921 too, so they are named with it). Nothing was recorded." \
  "$FAILMAP" --db t.db run --all
# (FA-98921's texts are FA-58566's too: the advice names both, as digest regenerate requires.)
refused "failmap: error: t.db: case FA-98921: its fields fixtures, summary do not match the field digests the archive stores: the case was changed after it was digested. \`failmap verify FA-98921\` names the difference; \`failmap digest regenerate FA-98921 FA-58566\` accepts the change (its texts are kept once for FA-58566 too, so they are named with it). Nothing was recorded." \
  "$FAILMAP" --db t.db run FA-98921

# 3. A recorded run changed by hand (the broken run's exit status). A run
# that keeps it (--strategy repaired) refuses to take it into the refreshed
# case digest; a run of every strategy replaces it, and verify then finds
# nothing.
fresh "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0"
expect_status 1 "$FAILMAP" --db t.db verify FA-98921
[ "$out" = "FA-98921  broken  exit_status: stored 0, recomputed 1
verified 1 case(s) and 3 replayed run(s): 1 mismatch(es)" ] || fail "verify after the exit status edit: $out"
before=$(archive_state t.db)
expect_status 2 "$FAILMAP" --db t.db run FA-98921 --strategy repaired
[ "$err" = "failmap: error: t.db: case FA-98921, broken run, field exit_status: 0, but its observation has \"passed\": false (exit_status 1): the run was changed after it was recorded. \`failmap run FA-98921\` records it again. Nothing was recorded." ] ||
  fail "run --strategy repaired after the exit status edit: $err"
[ "$(archive_state t.db)" = "$before" ] || fail "run --strategy repaired changed the archive"
expect_status 1 "$FAILMAP" --db t.db run FA-98921
expect_status 0 "$FAILMAP" --db t.db verify FA-98921
# The stored case digest deleted: rewritten by a run of every strategy, kept
# runs refused without it.
fresh "DELETE FROM case_digests WHERE case_id = 'FA-98921'"
expect_status 2 "$FAILMAP" --db t.db run FA-98921 --strategy broken
expect_error_mentions "t.db: case FA-98921: its content does not match the case digest the archive stores (stored none, recomputed"
expect_status 0 "$FAILMAP" --db t.db run --all
expect_status 0 "$FAILMAP" --db t.db verify

# 4. No stored field digests (an archive from before schema 3 keeps them
# NULL): such a case is checked against its case digest instead, and an
# unchanged one still records.
fresh "UPDATE cases SET field_digests = NULL"
# verify counts them on a line of its own, not as mismatches (it said
# nothing: a NULL written by hand went unseen).
expect_status 0 "$FAILMAP" --db t.db verify
[ "$out" = "$SHIPPED case(s) hold no field digests (as cases migrated from before schema 3): only their case digest was compared; \`failmap digest regenerate\` stores them
verified $SHIPPED case(s) and $((SHIPPED * 3)) replayed run(s): everything matches" ] || fail "verify without field digests: $out"
expect_status 0 "$FAILMAP" --db t.db verify --json --jobs 2
[ "$out" = "{\"ok\":true,\"cases\":$SHIPPED,\"runs\":$((SHIPPED * 3)),\"without_field_digests\":$SHIPPED,\"mismatches\":[],\"gradings\":{\"checked\":0,\"not_checked\":0,\"mismatches\":[]}}" ] || fail "verify --json: $out"
expect_status 0 "$FAILMAP" --db t.db run --all
fresh "UPDATE cases SET field_digests = NULL, params = '{\"N\": 2}' WHERE id = 'FA-98921'"
cp clean.db want.db && sqlite3 want.db "UPDATE cases SET field_digests = NULL, params = '{\"N\": 2}' WHERE id = 'FA-98921'"
for args in "run --all" "run FA-98921"; do
  expect_status 2 "$FAILMAP" --db t.db $args
  expect_error_mentions "t.db: case FA-98921: its content does not match the case digest the archive stores (stored $(stored_case_digest), recomputed"
  [ "$(archive_state t.db)" = "$(archive_state want.db)" ] || fail "$args changed the archive"
done

# 5. The field digests themselves damaged (content unchanged): refused, and
# verify names each one (before, it found nothing while the case digest
# matched).
fresh "UPDATE cases SET field_digests = zeroblob(256) WHERE id = 'FA-98921'"
refused "$(changed "evaluation_group, fixtures, id, mechanism, params, recorded, tier, variant" s)" "$FAILMAP" --db t.db run FA-98921
expect_status 1 "$FAILMAP" --db t.db verify FA-98921
zero=0000000000000000000000000000000000000000000000000000000000000000
[ "$(echo "$out" | grep -c "^FA-98921  -  [a-z_]*: stored $zero, recomputed [0-9a-f]\{64\}$")" = 8 ] &&
  [ "$(echo "$out" | wc -l)" = 9 ] || fail "verify after zeroed field digests: $out"
p1=$(printf '{"N":"1"}' | sha256sum | cut -d' ' -f1)  # the binding's field digest (schema/DIGESTS.md)
echo "$out" | grep -qx "FA-98921  -  params: stored $zero, recomputed $p1" || fail "verify: no params line: $out"
"$FAILMAP" --db t.db digest regenerate FA-98921 >/dev/null
expect_status 0 "$FAILMAP" --db t.db verify FA-98921
expect_status 1 "$FAILMAP" --db t.db run FA-98921

# 6. A prose edit of a case_texts row three cases share: `digest regenerate`
# of one of them refuses, naming the others (it rewrote the shared row's
# digests, so the others' edit went unnamed and a full run recorded them);
# named together, they are accepted.
fresh "UPDATE case_texts SET summary = summary || ' x' WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-11135')"
others=$(sqlite3 t.db "SELECT group_concat(id, ', ') FROM (SELECT id FROM cases WHERE text_id = (SELECT text_id FROM cases WHERE id = 'FA-11135') AND id != 'FA-11135' ORDER BY id)")
[ "$others" = "FA-81162, FA-97348" ] || fail "cases sharing FA-11135's texts: $others"
refused "failmap: error: t.db: case FA-11135: its texts changed, and they are kept once for cases FA-81162, FA-97348 too (schema/007_case_texts.sql), whose digests would then accept the change unnamed: name them as well, or run \`failmap digest regenerate\` without ids. Nothing was written." \
  "$FAILMAP" --db t.db digest regenerate FA-11135
refused "failmap: error: t.db: case FA-81162: its field summary does not match the field digest the archive stores: the case was changed after it was digested. \`failmap verify FA-81162\` names the difference; \`failmap digest regenerate FA-81162 FA-11135 FA-97348\` accepts the change (its texts are kept once for FA-11135, FA-97348 too, so they are named with it). Nothing was recorded." \
  "$FAILMAP" --db t.db run FA-81162
expect_status 0 "$FAILMAP" --db t.db digest regenerate FA-11135 FA-81162 FA-97348
expect_status 0 "$FAILMAP" --db t.db verify

# 7. A run's exit_status flipped against its observation's "passed": the
# exit status is derived from the observation, so `digest regenerate`
# derives it again (as it does the digest from the observation's bytes)
# instead of digesting the contradiction (it did, and export then wrote a
# bundle that import refuses); a recorded run of the case replaces it too.
# (Changed deliberately: regenerate refused it, advising `run`, which
# refuses a case whose fields changed as well: tests/e2e/advice_walk.sh.)
fresh "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0"
expect_status 0 "$FAILMAP" --db t.db digest regenerate FA-98921
[ "$out" = "FA-98921  broken  exit_status: was 0, now 1
regenerated the digests of 1 case(s) and 3 run(s): 1 value(s) changed" ] || fail "digest regenerate of a flipped exit status: $out"
expect_status 0 "$FAILMAP" --db t.db verify
[ "$(sqlite3 t.db "SELECT exit_status FROM runs WHERE case_id = 'FA-98921' AND strategy = 0")" = 1 ] ||
  fail "digest regenerate did not restore the exit status"
expect_status 0 "$FAILMAP" --db t.db export --out out7r
fresh "UPDATE runs SET exit_status = 0 WHERE case_id = 'FA-98921' AND strategy = 0"
# A run keeping it, and export, advise a run of every strategy.
refused "failmap: error: t.db: case FA-98921, broken run, field exit_status: 0, but its observation has \"passed\": false (exit_status 1): the run was changed after it was recorded. \`failmap run FA-98921\` records it again. Nothing was recorded." \
  "$FAILMAP" --db t.db run FA-98921 --strategy unsuccessful
expect_status 2 "$FAILMAP" --db t.db export --out out7a
[ "$err" = "failmap: error: t.db: case FA-98921, broken run, field exit_status: 0, but its observation has \"passed\": false (exit_status 1): the run was changed after it was recorded. \`failmap run FA-98921\` records it again. Nothing was exported." ] ||
  fail "export after exit_status edit: $err"
expect_status 1 "$FAILMAP" --db t.db verify FA-98921
echo "$out" | grep -qx "FA-98921  broken  exit_status: stored 0, recomputed 1" || fail "verify after exit_status edit: $out"
expect_status 1 "$FAILMAP" --db t.db run FA-98921
expect_status 0 "$FAILMAP" --db t.db verify
expect_status 0 "$FAILMAP" --db t.db export --out out7
