# An archive holding cases of a mechanism this build does not compile (written by another failmap) cannot be
# verified here: verify says so, naming the mechanism, its case count and this failmap's version, and exits 2
# (input error, as a newer schema version is), not 1 as if a digest did not match.
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json" "$SRC/cases/FA-13557.json"
sqlite3 "$FAILMAP_DB" "UPDATE cases SET mechanism_id = 'future-mechanism' WHERE id IN ('FA-98921', 'FA-13557')"
version=$("$FAILMAP" --version | head -1 | cut -d' ' -f2)
compiled=$("$FAILMAP" mechanisms --json 2>/dev/null | wc -l)
msg="failmap: error: $FAILMAP_DB holds cases of mechanism(s) unknown to this build (failmap $version, $compiled mechanisms compiled in, \`failmap mechanisms\` lists them): 'future-mechanism' (2 case(s)). The archive was written by a failmap that compiles them: verify it with that failmap or a newer one, or name the cases of other mechanisms"
for args in "" "--json" "--jobs 2" "FA-13557 FA-98921"; do
  expect_status 2 "$FAILMAP" verify $args
  [ "$err" = "$msg" ] || fail "verify $args said: $err"
  [ -z "$out" ] || fail "verify $args printed a report: $out"
done
expect_status 2 "$FAILMAP" verify FA-11135 FA-13557
[ "$err" = "${msg/(2 case(s))/(1 case(s))}" ] || fail "verify FA-11135 FA-13557 said: $err"
# The cases of compiled mechanisms are still verified when named.
expect_status 0 "$FAILMAP" verify FA-11135
[ "$out" = "verified 1 case(s) and 0 replayed run(s): everything matches" ] || fail "verify FA-11135: $out"
