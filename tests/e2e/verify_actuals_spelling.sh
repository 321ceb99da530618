# verify names a compact run's stored actual values re-spelled with sqlite3
# (a float given a trailing zero: the same value, so the same rebuilt
# document and digest), as it names a re-spelled fixture value; before, it
# found nothing (the trial's 1.7500000000000001 for 1.75).
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null
expect_status 0 "$FAILMAP" verify
# The first compact run (by case and strategy) whose actual values hold a
# float; its first float gets a trailing zero.
read -r case strategy stored respelled < <(python3 - "$FAILMAP_DB" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for case, strategy, actuals in db.execute(
        "SELECT case_id, strategy, actuals FROM runs WHERE actuals IS NOT NULL ORDER BY case_id, strategy"):
    m = re.search(r"\d\.\d+", actuals)
    if m:
        new = actuals[:m.end()] + "0" + actuals[m.end():]
        db.execute("UPDATE runs SET actuals = ? WHERE case_id = ? AND strategy = ?", (new, case, strategy))
        db.commit()
        print(case, ["broken", "unsuccessful", "repaired"][strategy], actuals.replace(" ", "\x01"), new.replace(" ", "\x01"))
        break
PY
)
[ -n "$case" ] || fail "no recorded run with a float among its actual values"
stored=${stored//$'\x01'/ } respelled=${respelled//$'\x01'/ }
expect_status 1 "$FAILMAP" verify
[ "$out" = "$case  $strategy  actuals: stored $respelled, recomputed $stored
verified $SHIPPED case(s) and $((SHIPPED * 3)) replayed run(s): 1 mismatch(es)" ] || fail "verify printed: $out"
expect_status 1 "$FAILMAP" verify "$case" --json
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
m = r["mismatches"]
assert len(m) == 1 and m[0]["field"] == "actuals" and m[0]["stored"] == sys.argv[2] and m[0]["recomputed"] == sys.argv[3], m
' "$out" "$respelled" "$stored" || fail "verify --json: $out"
