# export --format site, without a browser (tests/e2e/site_browser.sh
# loads the pages): the folder's files, deterministic bytes for any --jobs,
# SHA256SUMS, only relative links and no script, and what it refuses.
# The open build (-DFAILMAP_REPAIRS=OFF) checks the same of its open site (it refuses run --all, which runs
# the repairs, and the member tier).
T=member; [ "${FAILMAP_REPAIRS:-1}" = 1 ] || T=open
"$FAILMAP" import "$SRC/cases" >/dev/null
[ "$T" = open ] || expect_status 0 "$FAILMAP" run --all
count=$(ls "$SRC"/cases/*.json | wc -l)
mechanisms=$("$FAILMAP" list --json | python3 -c 'import json,sys; print(len({json.loads(l)["mechanism"] for l in sys.stdin}))')

expect_status 0 "$FAILMAP" export --format site --tier $T --out a --jobs 1
pages=$((count + mechanisms + 2))
[ "$err" = "exported a site of $pages page(s) ($count case(s), $mechanisms mechanism(s)) at the $T tier to a (open a/index.html; check: failmap verify-bundle a)" ] \
  || fail "summary line: $err"
"$FAILMAP" --quiet export --format site --tier $T --out b --jobs 2
diff -r a b >/dev/null || fail "two exports of the same archive differ"
(cd a && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not check"
[ "$(wc -l <a/SHA256SUMS)" -eq $((pages + 2)) ] || fail "SHA256SUMS lists $(wc -l <a/SHA256SUMS) files, expected $((pages + 2))"
python3 - a $T <<'PY' || fail "manifest"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
assert m["format"] == "failmap-site" and m["format_version"] == 3, m
assert m["export_tier"] == sys.argv[2] and "tier" not in m, m
PY
for id in $(cd "$SRC/cases" && ls *.json | sed 's/\.json$//'); do
  [ -f "a/case-$id.html" ] || fail "no page for $id"
done
[ -f a/index.html ] && [ -f a/units.html ] && [ -f a/style.css ] || fail "index, units or style.css missing"

# Every href and src is a file name of the folder (no scheme, no host, no path), but a mechanism
# page's link to its bug report, which is its source URL.
! grep -ohE '(href|src)="[^"]*"' a/*.html | grep -vE '^(href|src)="[A-Za-z0-9._-]+\.(html|css)(#[A-Za-z0-9._-]+)?"$' \
  | grep -v '^href="https://' || fail "a link that is not a file of the folder"
"$FAILMAP" mechanisms --json | python3 -c '
import html, json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    page = "a/mechanism-%s.html" % m["id"]
    if not os.path.exists(page):
        continue
    text = open(page, encoding="utf-8").read()
    want = "<a class=\"bug-report\" href=\"%s\" rel=\"external noreferrer\">%s</a>" % ((html.escape(m["source"]),) * 2)
    assert m["source"] and text.count("href=\"https://") == 1 and want in text, (page, m["source"])
' || fail "a mechanism page does not link its bug report"
! grep -l '<script' a/*.html || fail "a page holds a script"
# The open site: no repair section; the member one has one per case.
"$FAILMAP" --quiet export --format site --tier open --out open
! grep -l '3 / The repair' open/*.html || fail "the open site holds the repair"
[ "$T" = open ] || [ "$(grep -l '<h2>3 / The repair</h2>' a/case-*.html | wc -l)" -eq "$count" ] || fail "member case pages without the repair"

# Refused, exit 2, nothing written: case ids (a site is the whole archive), a non-empty folder, another format.
expect_status 2 "$FAILMAP" export --format site --out c FA-98921
expect_error_mentions "--format site exports the whole archive"
[ ! -e c ] || fail "a refused export left c"
expect_status 2 "$FAILMAP" export --format site --out a
expect_error_mentions "folder is not empty"
expect_status 2 "$FAILMAP" export --format html --out c
expect_error_mentions "--format: expected jsonl, pages, site or tasks, got 'html'"

# A case changed after it was digested (an edit with sqlite3) is refused as the other exports refuse it.
id=$(sqlite3 "$FAILMAP_DB" "SELECT id FROM cases ORDER BY id LIMIT 1")
[ "$T" = member ] || { checks_may_fail "$FAILMAP" -q run "$id" >/dev/null; }  # its broken run (exit 1 by design)
sqlite3 "$FAILMAP_DB" "UPDATE runs SET actuals = '[1, 2]' WHERE case_id = '$id' AND strategy = 0"
expect_status 2 "$FAILMAP" export --format site --out c
expect_error_mentions "$id"
[ ! -e c ] || fail "a refused export left c"
