# failmap history: --json is one object in every case, also for a case with no
# earlier version; an unknown id is an error (exit 2) in text and --json mode.
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null

# No earlier version: valid JSON that says so (before, --json printed nothing).
expect_status 0 "$FAILMAP" history FA-98921 --json
[ "$out" = '{"case":"FA-98921","current":true,"versions":[]}' ] || fail "history --json, no versions: '$out'"
[ -z "$err" ] || fail "history --json wrote to stderr: $err"
expect_status 0 "$FAILMAP" history FA-98921
[ "$out" = 'VERSION  REPLACED AT           RECORD SHA-256     REPLACED BY
current  (in the archive)
0 earlier version(s) of FA-98921' ] || fail "history text, no versions: '$out'"

# Unknown case: exit 2, nothing on stdout, in both modes.
for mode in "" --json; do
  expect_status 2 "$FAILMAP" history FA-00000 $mode
  [ -z "$out" ] || fail "history FA-00000 $mode printed '$out'"
  expect_error_mentions "unknown case 'FA-00000' in $FAILMAP_DB (no current version, no history)"
done

# Two replacements: the same object with two versions, oldest first, each with
# the record it held (titles as imported) and what replaced it.
for title in "First retitling" "Second retitling"; do
  python3 - "$SRC/cases/FA-98921.json" "$title" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = sys.argv[2]
json.dump(c, open(sys.argv[2].split()[0] + ".json", "w"))
PY
done
"$FAILMAP" import --replace First.json >/dev/null
"$FAILMAP" import --replace Second.json >/dev/null
expect_status 0 "$FAILMAP" history FA-98921 --json
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "history --json is not one line: $out"
printf '%s\n' "$out" | python3 -c '
import json, sys
h = json.loads(sys.stdin.read())
assert list(h) == ["case", "current", "versions"], list(h)
assert h["case"] == "FA-98921" and h["current"] is True, h
v = h["versions"]
assert [e["version"] for e in v] == [1, 2], v
assert [list(e) for e in v] == [["version", "replaced_at", "replaced_by", "record"]] * 2, v
assert v[0]["record"]["title"] == "The final short batch is discarded from accumulation", v[0]["record"]["title"]
assert v[1]["record"]["title"] == "First retitling", v[1]["record"]["title"]
assert v[0]["replaced_by"].endswith("First.json") and v[1]["replaced_by"].endswith("Second.json"), v
assert all(e["record"]["id"] == "FA-98921" for e in v)
' || fail "history --json with two versions: $out"
expect_status 0 "$FAILMAP" history FA-98921
printf '%s\n' "$out" | tail -1 | grep -qx "2 earlier version(s) of FA-98921" || fail "history text: $out"
