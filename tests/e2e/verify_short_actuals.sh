# A compact run whose stored actual values are a list of another length than the case has fixtures: verify
# names it as `digest regenerate` refuses it, field `actuals`, "1 actual value for 7 fixtures" (before: verify
# named the field `observations` with the bare lists, and regenerate said "1 actual values for 7 fixtures").
needs_repairs  # the damaged run is the repaired one
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-11135.json"
checks_may_fail "$FAILMAP" -q run --all >/dev/null
sqlite3 "$FAILMAP_DB" "UPDATE runs SET actuals = '[0]' WHERE strategy = 2"
expect_status 1 "$FAILMAP" verify --json
[ "$out" = '{"ok":false,"cases":1,"runs":3,"without_field_digests":0,"mismatches":[{"case":"FA-11135","strategy":"repaired","field":"actuals","stored":"[0] (1 actual value for 7 fixtures)","recomputed":"[2.3333333333333335, 3.0, 4.0, 2.0, 1.75, 7.0, 2.5]"}]}' ] ||
  fail "verify --json: $out"
expect_status 2 "$FAILMAP" digest regenerate
expect_error_mentions "case FA-11135, repaired run actuals: 1 actual value for 7 fixtures (the recorded run"
sqlite3 "$FAILMAP_DB" "UPDATE runs SET actuals = '[1.0, 2.0]' WHERE strategy = 2"
expect_status 1 "$FAILMAP" verify
grep -q '^FA-11135  repaired  actuals: stored \[1.0, 2.0\] (2 actual values for 7 fixtures), recomputed \[2.3333333333333335, ' stdout.txt ||
  fail "verify: $out"
