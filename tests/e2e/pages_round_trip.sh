# A page failmap exports imports back as the same case: its digests are the
# archive's own (or, where the archive keeps no published values, the ones
# failmap computes for the page), so it is counted unchanged at both tiers,
# into the archive it came from and into another holding the same case
# files. Before, every case imported from a case file was refused: "already
# exists in the archive with different content" (the page's digests became
# published values the stored case lacked). A page whose digests are not
# failmap's own is still different content.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" import "$SRC/cases/" >/dev/null
"$FAILMAP" run --all >/dev/null
"$FAILMAP" --db plain.db import "$SRC/cases/" >/dev/null  # the case files alone, no runs
before=$(archive_state)
plain=$(archive_state plain.db)
for tier in open member; do
  expect_status 0 "$FAILMAP" export --format pages --tier $tier --out pages-$tier
  expect_status 0 "$FAILMAP" import pages-$tier
  [ "$(echo "$out" | head -1)" = "imported 0 new case(s), 0 replaced, $SHIPPED unchanged into $FAILMAP_DB" ] ||
    fail "$tier pages imported back: $out"
  expect_status 0 "$FAILMAP" --db plain.db import pages-$tier
  [ "$(echo "$out" | head -1)" = "imported 0 new case(s), 0 replaced, $SHIPPED unchanged into plain.db" ] ||
    fail "$tier pages into the case files' archive: $out"
done
[ "$(archive_state)" = "$before" ] || fail "importing the archive's own pages changed it"
[ "$(archive_state plain.db)" = "$plain" ] || fail "importing the pages changed plain.db"

# FA-11135 came from a case file: its page's digests are computed. A page
# whose case digest (or a run digest) is not that one is another case.
conflict="case FA-11135 already exists in the archive with different content"
sed 's|^Case digest / [0-9a-f]*$|Case digest / '"$(printf '0%.0s' $(seq 64))"'|' pages-open/FA-11135.txt > other-case-digest.txt
grep -qx "Case digest / 0\{64\}" other-case-digest.txt || fail "sed did not edit the case digest"
expect_status 2 "$FAILMAP" import other-case-digest.txt
expect_error_mentions "other-case-digest.txt: $conflict (members that differ: published; use --replace"
sed '0,/^SHA-256 \/ [0-9a-f]*$/s||SHA-256 / '"$(printf 'f%.0s' $(seq 64))"'|' pages-open/FA-11135.txt > other-run-digest.txt
grep -qx "SHA-256 / f\{64\}" other-run-digest.txt || fail "sed did not edit the run digest"
expect_status 2 "$FAILMAP" import other-run-digest.txt
expect_error_mentions "other-run-digest.txt: $conflict (members that differ: published; use --replace"

# The refusal names the members that differ (it named none).
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = "Retitled"; c["tier"] = "member"
c["published"]["case_digest"] = "0" * 64
json.dump(c, open("retitled.json", "w"))
PY
expect_status 2 "$FAILMAP" import retitled.json
[ "$err" = "failmap: error: retitled.json: case FA-98921 already exists in the archive with different content (members that differ: published.case_digest, tier, title; use --replace to overwrite; the previous version is kept, see \`failmap history\`) (nothing was imported)" ] ||
  fail "retitled.json: $err"
[ "$(archive_state)" = "$before" ] || fail "a refused page changed the archive"
