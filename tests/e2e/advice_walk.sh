# Every refusal of a tampered archive names a command that works: follow the advice of each refusal
# (the last `failmap …` it names other than `failmap verify`, which only reports) until a command
# succeeds, then the command first refused must succeed too; a command refusing twice in one walk is a
# loop. Before: with a case field and a run's exit status both changed by hand, `run` said
# "`failmap digest regenerate` accepts the change", `digest regenerate` said "`failmap run` records it
# again", and `run` refused again.
needs_repairs  # its archive is made by `run --all`, and the walk follows advice to it
"$FAILMAP" -q import "$(cases_dir)" >/dev/null
"$FAILMAP" -q run --all >/dev/null
cp "$FAILMAP_DB" clean.db
id=FA-98921
# walk SQL CMD...: on a fresh copy of the archive edited by SQL, follows the advice from CMD.
walk() {
  local sql=$1; shift
  rm -rf t.db t.db-wal t.db-shm out* && cp clean.db t.db && sqlite3 t.db "$sql"
  local cmd="$*" tried="" step=0
  local next=$cmd
  while :; do
    step=$((step + 1)); [ $step -le 8 ] || fail "no end after 8 steps from '$cmd': $tried"
    rm -rf out
    set +e; eval "\"\$FAILMAP\" --db t.db $next" >stdout.txt 2>stderr.txt; local got=$?; set -e
    if [ $got != 2 ]; then
      [ "$next" = "$cmd" ] && break
      next=$cmd  # the advice worked: the command first refused again
      continue
    fi
    case "$tried" in *"[$next]"*) fail "loop: '$next' refused twice from '$cmd' (walk: $tried): $(cat stderr.txt)" ;; esac
    tried="$tried[$next]"
    local advised
    # grep exits 1 when the error names no command; the check below fails on the empty result instead.
    advised=$(grep -o '`failmap [^`]*`' stderr.txt | grep -v '^`failmap verify' | tail -1 | tr -d '`') || true
    [ -n "$advised" ] || fail "'$next' refused without naming a command that works: $(cat stderr.txt)"
    next=${advised#failmap }
  done
}
exit_flip="UPDATE runs SET exit_status = 0 WHERE case_id = '$id' AND strategy = 0;"
field="UPDATE cases SET params = '{\"N\": 2}' WHERE id = '$id';"
digest_zero="UPDATE runs SET digest = zeroblob(32) WHERE case_id = '$id' AND strategy = 1;"
# Stored actual values that do not decode: every refusal names `failmap run`, which records the runs again.
not_json="UPDATE runs SET actuals = 'not json' WHERE case_id = '$id' AND strategy = 0;"
# The same with the case's summary also changed: `run` refuses the changed field and
# names `digest regenerate`, which must not refuse the undecodable run by naming `run` again; it names
# `digest regenerate --discard-unreadable-runs`, which discards the run and accepts the change.
summary="UPDATE case_texts SET summary = 'edited' WHERE text_id = (SELECT text_id FROM cases WHERE id = '$id');"
bad_actuals="UPDATE runs SET actuals = '[0, 2' WHERE case_id = '$id' AND strategy = 2;"
bad_observation="UPDATE runs SET actuals = NULL, observation = '{\"observations\": [' WHERE case_id = '$id' AND strategy = 1;"
for sql in "$not_json $summary" "$bad_actuals $summary" "$bad_observation" "$bad_observation $summary" \
  "$not_json $bad_observation $summary"; do
  for cmd in "run $id" "run $id --strategy repaired" "run --all" "export --out out" \
    "split --ratios train=0.5,test=0.5 --out out" "digest regenerate $id" "digest regenerate"; do
    walk "$sql" $cmd
  done
done
for sql in "$not_json" "$exit_flip" "$field" "$field $exit_flip" "$digest_zero" "$field $digest_zero" "$exit_flip $digest_zero" \
  "$field $exit_flip $digest_zero"; do
  for cmd in "run $id" "run $id --strategy repaired" "run --all" "export --out out" \
    "split --ratios train=0.5,test=0.5 --out out" "digest regenerate $id" "digest regenerate"; do
    walk "$sql" $cmd
  done
done
