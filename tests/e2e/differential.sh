# Differential test against the oracle: for every case in cases/ (every 8th
# in the sanitizer pass: case_ids in tests/harness/lib.sh) and every
# strategy, python3 running `failmap reference` prints the same bytes and
# exits with the same status as `failmap run --format json`.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases" >/dev/null
count=0
for id in $(case_ids); do
  for s in broken unsuccessful repaired; do
    "$FAILMAP" reference "$id" --strategy "$s" > ref.py
    set +e
    python3 ref.py > py.out; py_status=$?
    "$FAILMAP" run "$id" --strategy "$s" --format json --no-record > fm.out; fm_status=$?
    set -e
    cmp -s py.out fm.out || { diff py.out fm.out | head -5; fail "$id $s: stdout bytes differ from python3"; }
    [ "$py_status" -eq "$fm_status" ] || fail "$id $s: exit $fm_status, python3 exits $py_status"
    count=$((count + 1))
  done
done
[ "$count" -ge 3 ] || fail "only $count runs compared"
echo "compared $count runs byte for byte"
