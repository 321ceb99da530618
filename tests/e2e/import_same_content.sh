# import names a new case whose checks repeat those of a case already in the archive under another id, as
# instantiate names such variants: a note on stderr (the case is imported, exit 0) and `same_content` in --json.
# A case with the same id and content is "unchanged", with no note; cases alike within one import are not
# "already in the archive".
note() {
  echo "failmap: note: $1 has the same content (the same checks) as $2, already in the archive (\`failmap remove $1\` takes it out; split --group-by content keeps them on one side)"
}
sed 's/FA-98921/FA-00001/' "$SRC/cases/FA-98921.json" > copy1.json
sed 's/FA-98921/FA-00002/' "$SRC/cases/FA-98921.json" > copy2.json
# Into an empty archive, the original and a copy together: nothing was there before.
expect_status 0 "$FAILMAP" --db together.db import "$SRC/cases/FA-98921.json" copy1.json
[ -z "$err" ] || fail "an import into an empty archive noted: $err"

expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json"
expect_status 0 "$FAILMAP" import copy1.json "$SRC/cases/FA-13557.json"
[ "$err" = "$(note FA-00001 FA-98921)" ] || fail "import of a copy said: $err"
[ "$out" = "imported 2 new case(s), 0 replaced, 0 unchanged into $FAILMAP_DB" ] || fail "import of a copy: $out"
# Again: unchanged, no note.
expect_status 0 "$FAILMAP" import copy1.json
[ -z "$err" ] || fail "an unchanged case was noted: $err"
# A second copy has the checks of two cases already there; --json lists them in id order.
expect_status 0 "$FAILMAP" import copy2.json --json
[ "$err" = "$(note FA-00002 "FA-00001, FA-98921")" ] || fail "import --json of a second copy said: $err"
python3 -c 'import json, sys
got = json.loads(sys.argv[1])["same_content"]
assert got == [{"id": "FA-00002", "same_content_as": ["FA-00001", "FA-98921"]}], got' "$out" ||
  fail "--json same_content: $out"
