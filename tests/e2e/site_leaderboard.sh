# export --format site --results DIR...: leaderboard.html, without a browser
# (tests/e2e/site_browser.sh loads it): per split and model the counts, the
# resolved rate and pass@k of summary.json (intervals and coverage where the
# summary gives them, "-" where not), held-out, a per-mechanism SVG bar chart
# whose bars are the pass@1 values; hostile model names escaped and told
# apart; the mechanism pages' bug-report links and the index's title; the
# refusals (a grading that fails its manifest, another kind of folder, one
# model graded twice on a split, --results without --format site).
"$FAILMAP" import "$SRC/cases" >/dev/null
PRED="$SRC/tests/data/predictions/demo.jsonl"
SANDBOX=bwrap; "$FAILMAP" grade "$PRED" --out probe --no-record >/dev/null 2>&1 || SANDBOX=none
rm -rf probe
grade() { "$FAILMAP" -q grade --sandbox $SANDBOX --no-record "$@" >/dev/null; }

# The demo grading (no split), and a split's test cases graded for three models whose names are hostile:
# "model-A", "model-A " (a trailing space) and "model-A" with a zero-width space, and markup.
grade "$PRED" --out demo
"$FAILMAP" -q split --ratios train=0.8,test=0.2 --format tasks --out tasks >/dev/null
python3 - tasks/test.jsonl <<'PY' >hostile.jsonl
import json, sys
tasks = [json.loads(l) for l in open(sys.argv[1])]
names = ["model-A", "Model-A", "model-\u00c5", "<script>x</script>&\"q\""]  # names grade accepts (NFC, nothing invisible)
for n, name in enumerate(names):
    for t in tasks[: 2 + n]:  # each model answers another number of tasks
        print(json.dumps({"case": t["task_id"], "model": name, "sample": 0, "source": t["broken_source"]}))
PY
grade hostile.jsonl --split tasks --split-name test --out hostile

expect_status 0 "$FAILMAP" export --format site --results demo hostile --out site
cases=$(ls site/case-*.html | wc -l)
mechanisms=$(ls site/mechanism-*.html | wc -l)
[ "$err" = "exported a site of $((cases + mechanisms + 3)) page(s) ($cases case(s), $mechanisms mechanism(s)) at the open tier to site (open site/index.html; check: failmap verify-bundle site)" ] ||
  fail "summary line: $err"
expect_status 0 "$FAILMAP" verify-bundle site
[ "$(tail -1 stdout.txt)" = "verified site (site, open tier): $((cases + mechanisms + 4 + 1)) file(s), $((cases + mechanisms + 3)) page(s); signature absent: everything matches" ] ||
  fail "verify-bundle: $out"
# The same gradings give the same bytes, whatever their order on the command line.
"$FAILMAP" -q export --format site --results hostile demo --out site2
diff -r site site2 >/dev/null || fail "the site depends on the order of --results"

# The rows and charts, read from the page's markup (the values computed here from summary.json).
python3 - site/leaderboard.html demo/summary.json hostile/summary.json <<'PY' || fail "leaderboard values"
import html.parser, json, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert "<script" not in page and "<img" not in page, "markup of a model name became an element"
assert "&lt;script&gt;x&lt;/script&gt;&amp;&quot;q&quot;" in page, "the hostile name is not shown escaped"

class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.rows = []; self.row = None; self.cell = None; self.sections = []; self.bars = {}; self.fig = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("class") == "split": self.sections.append([])
        if tag == "tr" and self.sections: self.row = []
        if tag in ("td", "th") and self.row is not None: self.cell = ""
        if tag == "figure": self.fig = a["id"]; self.bars[self.fig] = []
        if tag == "rect" and a.get("class") == "bar": self.bars[self.fig].append(float(a["width"]))
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None: self.row.append(self.cell); self.cell = None
        if tag == "tr" and self.row is not None:
            if self.row and self.row[0] != "Model": self.sections[-1].append(self.row)
            self.row = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d

p = Rows(); p.feed(page)
demo, hostile = (json.load(open(f)) for f in sys.argv[2:4])
assert len(p.sections) == 2, p.sections
def expect(rows, summary):
    models = summary["models"]
    # By pass@1, highest first, then name.
    order = sorted(models, key=lambda m: (-models[m]["pass_at_k"]["1"], m))
    shown = [r[0] for r in rows]
    def visible(name):
        out = "".join("\\u%04x" % ord(c) if c in "\u200b" else c for c in name)
        return out.rstrip(" ") + "\\u0020" * (len(out) - len(out.rstrip(" ")))
    assert shown == [visible(m) for m in order], (shown, order)
    for r, m in zip(rows, order):
        s = models[m]
        assert r[1] == str(s["cases"]) and r[3] == str(s["predictions"]) and r[4] == str(s["resolved"]), r
        assert r[2] == ("%d of %d" % (s["cases"], s["split_cases"]) if "coverage" in s else "-"), r
        assert r[5] == "%.3f" % (s["resolved"] / s["predictions"]), r
        assert r[6] == "%.3f" % s["pass_at_k"]["1"], r
        iv = s.get("pass_at_k_interval", {}).get("1")
        assert r[7] == ("[%.3f, %.3f]" % tuple(iv) if iv else "-"), r
        assert r[9] == ("%d of %d" % (s["held_out_resolved"], s["resolved"]) if summary["held_out"] else "-"), r
expect(p.sections[0], demo)      # no split first
expect(p.sections[1], hostile)   # split "test"
# Four models' names, all told apart, markup escaped.
names = [r[0] for r in p.sections[1]]
assert "model-A" in names and "Model-A" in names and "model-\u00c5" in names, names
assert len(set(names)) == 4, names
# The demo model's chart: one bar per mechanism, 540 units for pass@1 = 1.
m = demo["models"]["demo-model"]
bars = [b for fig, b in p.bars.items() if fig == "split-1-model-2"][0]
assert bars == [round(v["pass_at_k"]["1"] * 540, 2) for v in m["mechanisms"].values()], bars
print("leaderboard: %d + %d rows checked" % (len(p.sections[0]), len(p.sections[1])))
PY
grep -q '<svg class="chart" viewBox="0 0 640 ' site/leaderboard.html || fail "no chart"
for f in site/index.html site/case-FA-98921.html site/units.html "$(ls site/mechanism-*.html | head -1)"; do
  grep -q '<a href="leaderboard.html">Leaderboard</a>' "$f" || fail "$f does not link the leaderboard"
done

# Intervals and coverage where a summary gives them (as a results folder may): shown; the folder re-summed.
cp -r demo withci
python3 - withci/summary.json <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p))
m = s["models"]["demo-model"]
m["pass_at_k_interval"] = {"1": [0.0625, 0.5], "2": {"low": 0.25, "high": 0.75}}
m["coverage"] = {"attempted": 1, "cases": 18}
m["mechanisms"]["gradient-accumulation-weighting"]["pass_at_k_interval"] = {"1": [0.125, 0.375]}
open(p, "w").write(json.dumps(s, separators=(",", ":")) + "\n")
PY
resum_bundle withci
expect_status 0 "$FAILMAP" export --format site --results withci --out site-ci
grep -q '<td>1 of 18</td><td>4</td><td>1</td><td>0.250</td><td>0.250</td><td>\[0.062, 0.500\]</td><td><ul class="ks"><li>pass@2 0.500 \[0.250, 0.750\]</li>' site-ci/leaderboard.html ||
  fail "interval or coverage not shown: $(grep -o '<tr><th scope="row">.*demo-model.*</tr>' site-ci/leaderboard.html)"
grep -q '<path class="whisker" d="M68.5 [0-9.]*H203.5' site-ci/leaderboard.html || fail "no whisker from 0.125 to 0.375 (68.5 to 203.5 units)"

# Mechanism pages link their bug report; the index is titled once.
grep -q '<p class="source">Grounded in <a class="bug-report" href="https://' site/mechanism-*.html || fail "no bug report link"
[ "$(grep -c 'Grounded in <a class="bug-report" href="https://' site/mechanism-*.html | grep -c ':1$')" -eq "$mechanisms" ] ||
  fail "not every mechanism page links its bug report"
! grep -q 'Grounded in <code>' site/mechanism-*.html || fail "a bug report shown as <code>"
grep -q '<title>Failure Map archive</title>' site/index.html || fail "index title: $(grep '<title>' site/index.html)"
grep -q '<title>Split units · Failure Map archive</title>' site/units.html || fail "units title"
# Without --results: no leaderboard, no link to one.
"$FAILMAP" -q export --format site --out plain
[ ! -e plain/leaderboard.html ] && ! grep -q leaderboard plain/*.html || fail "a leaderboard without --results"
set +e; tidy -errors -quiet site/leaderboard.html 2>tidy.txt; rc=$?; set -e
[ $rc -lt 2 ] || fail "tidy -errors leaderboard.html: $(cat tidy.txt)"

# Refused, exit 2, nothing written.
cp -r demo tampered && sed -i '1s/"verdict":"resolved"/"verdict":"unresolved"/' tampered/results.jsonl
expect_status 2 "$FAILMAP" export --format site --results tampered --out r1
expect_error_mentions "tampered/manifest.json: field 'sha256.results.jsonl': SHA-256 of 'results.jsonl' does not match"
[ ! -e r1 ] || fail "a refused export left r1"
expect_status 2 "$FAILMAP" export --format site --results tasks --out r1
expect_error_mentions "tasks: not a grading (its manifest.json says 'failmap-split'"
expect_status 2 "$FAILMAP" export --format site --results demo withci --out r1
expect_error_mentions "is graded twice on the cases of no split: in "
expect_status 2 "$FAILMAP" export --format jsonl --results demo --out r1
expect_error_mentions "--results: only with --format site"
cp -r demo badsum && python3 - badsum/summary.json <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p)); s["models"]["baseline"]["pass_at_k"]["1"] = "x"
open(p, "w").write(json.dumps(s) + "\n")
PY
resum_bundle badsum
expect_status 2 "$FAILMAP" export --format site --results badsum --out r1
[ "$err" = "failmap: error: badsum/summary.json: field 'models.baseline.pass_at_k.1': expected a number from 0 to 1, got the string \"x\"" ] ||
  fail "a bad summary: $err"
[ ! -e r1 ] || fail "a refused export left r1"
