# The site export in a real browser: headless Debian chromium, one
# session for every page (tests/harness/site_browser.py says what it checks).
# The shipped cases at both tiers, whatever cases/ holds: each case page's
# innerText against the text page of the same case and tier, links, console,
# no sideways scroll at 390 px; every page through `tidy -errors`; a case
# whose title and prose hold markup, quotes, ampersands and control
# characters shows them as written and runs nothing. Screenshots of
# FA-98921's page go to the build folder's test-output/site_browser/.
skip_under_sanitizer "what the browser shows is checked in the first pass; the site export itself runs under the sanitizer in the site_* scenarios"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps.sh installs it)"
"$FAILMAP" import "$SRC/cases" >/dev/null
[ "${FAILMAP_REPAIRS:-1}" = 0 ] || expect_status 0 "$FAILMAP" run --all  # the open build refuses it (it runs the repairs)
count=$(ls "$SRC"/cases/*.json | wc -l)
# The open build (-DFAILMAP_REPAIRS=OFF) exports the open tier only; the rest is the same.
tiers="open member"; [ "${FAILMAP_REPAIRS:-1}" = 1 ] || tiers=open
sites=(); for tier in $tiers; do sites+=(--site "$tier" "site-$tier" "pages-$tier"); done
# The member site (the open one in the open build) with a leaderboard of the demo grading.
SANDBOX=bwrap; "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out probe --no-record >/dev/null 2>&1 || SANDBOX=none
rm -rf probe
"$FAILMAP" -q grade "$SRC/tests/data/predictions/demo.jsonl" --sandbox $SANDBOX --no-record --out graded >/dev/null
last=${tiers##* }
for tier in $tiers; do
  results=(); [ "$tier" != "$last" ] || results=(--results graded)
  "$FAILMAP" --quiet export --format site --tier $tier "${results[@]}" --out site-$tier
  "$FAILMAP" --quiet export --format pages --tier $tier --out pages-$tier
  [ "$(ls site-$tier/case-*.html | wc -l)" -eq "$count" ] || fail "$tier site: $(ls site-$tier/case-*.html | wc -l) case pages for $count cases"
done

# For FA-98921 the text page the browser check compares with is the published seed page itself.
cmp pages-open/FA-98921.txt "$SEED" || fail "the open text page of FA-98921 is not the seed page"

# tidy: exit 2 means errors (1: warnings only, which are printed).
for f in $(for tier in $tiers; do echo site-$tier/*.html; done); do
  set +e; tidy -errors -quiet "$f" 2>tidy.txt; rc=$?; set -e
  [ $rc -lt 2 ] || fail "tidy -errors $f: $(cat tidy.txt)"
  [ ! -s tidy.txt ] || echo "tidy warnings in $f: $(cat tidy.txt)" >&2
done

# A hostile case: its text must show as written and run nothing.
python3 - "$SRC/cases/FA-98921.json" hostile.json expected.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1], encoding="utf-8"))
c["id"] = "XSS-1"
c["title"] = 'Title <script>window.__failmap_pwned = 1</script> "quoted" & \'single\' <b>bold</b> esc\x1b[31m bell\x07 c1\u009b end'
c["summary"] = '<img src=x onerror="window.__failmap_pwned = 2"> &amp; is not &'
c["root_cause"] = '</p><script>window.__failmap_pwned = 3</script><p>'
c["contract"] = 'a "double" and \'single\' quote, <!-- a comment --> and ]]> &lt;'
c["scope"] = 'tab\there, <style>body{display:none}</style> & <a href="https://example.com/">a link</a>'
json.dump(c, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
shown = lambda s: "".join("\\x%02x" % ord(ch) if (ord(ch) < 0x20 and ch not in "\t\n") or ord(ch) == 0x7f
                          else "\\u%04x" % ord(ch) if 0x80 <= ord(ch) <= 0x9f else ch for ch in s)
json.dump({"h1": shown(c["title"]) + " · case 01", ".summary": c["summary"], ".prose p": c["root_cause"],
           "p": c["contract"], ".scope p": c["scope"]}, open(sys.argv[3], "w", encoding="utf-8"), ensure_ascii=False)
PY
FAILMAP_DB=hostile.db "$FAILMAP" --quiet import hostile.json >/dev/null
FAILMAP_DB=hostile.db "$FAILMAP" --quiet export --format site --out site-hostile
grep -q '&lt;script&gt;window.__failmap_pwned = 1&lt;/script&gt;' site-hostile/case-XSS-1.html || fail "the title is not escaped"
set +e; tidy -errors -quiet site-hostile/case-XSS-1.html 2>tidy.txt; rc=$?; set -e
[ $rc -lt 2 ] || fail "tidy -errors on the hostile case: $(cat tidy.txt)"

shots="$(dirname "$FAILMAP")/test-output/site_browser"
/usr/bin/python3 "$SRC/tests/harness/site_browser.py" "${sites[@]}" \
  --hostile site-hostile/case-XSS-1.html expected.json --shots "$shots" FA-98921 >browser.txt 2>&1 \
  || fail "browser checks: $(cat browser.txt)"
cat browser.txt
grep -q "^$(($(echo $tiers | wc -w) * count)) case page(s) compared, 0 failure(s)" browser.txt || fail "not every case page was compared: $(cat browser.txt)"
grep -q "^$last tier: .*, 2 chart(s)$" browser.txt || fail "the leaderboard's two charts were not loaded: $(cat browser.txt)"
[ -s "$shots/FA-98921-1280.png" ] && [ -s "$shots/FA-98921-390.png" ] || fail "no screenshots in $shots"
