# import --jobs N: a bundle's lines are read, checked and converted on N
# worker threads in batches of 64 while the calling thread writes the archive
# (--jobs 1: all on the calling thread).
# On a member bundle of 1,000 cases and their 3,000 runs (many batches), the
# archive is identical for every N; with problems spread over the files
# (syntax error, empty line, duplicate id, schema violation, unknown record
# type, wrong run digest) every N reports the same problems in the same
# order and leaves the archive unchanged; --jobs 0 is a usage error.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" -q instantiate gradient-accumulation-weighting --param N=1..1000 >/dev/null
checks_may_fail "$FAILMAP" -q run --all >/dev/null 2>&1
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out good
[ "$(wc -l < good/cases.jsonl)" = 1000 ] && [ "$(wc -l < good/runs.jsonl)" = 3000 ] || fail "unexpected bundle size"

for jobs in 1 2 3 8; do
  expect_status 0 "$FAILMAP" --db "j$jobs.db" import --jobs "$jobs" good
  [ "$out" = "imported 1000 new case(s), 0 replaced, 0 unchanged; 3000 run(s) recorded, 0 unchanged into j$jobs.db" ] ||
    fail "--jobs $jobs: $out"
done
state=$(archive_state j1.db)
for jobs in 2 3 8; do [ "$(archive_state "j$jobs.db")" = "$state" ] || fail "--jobs $jobs archive differs from --jobs 1"; done
expect_status 0 "$FAILMAP" --db j1.db export --format jsonl --tier member --out rt
diff -r good rt >/dev/null || fail "import --jobs 1 then export is not the same bundle"
# Identical content again: nothing changes, whatever N.
for jobs in 1 3; do
  expect_status 0 "$FAILMAP" --db j1.db import --jobs "$jobs" good
  case "$out" in *"0 new case(s), 0 replaced, 1000 unchanged"*"nothing changed"*) ;; *) fail "re-import --jobs $jobs: $out" ;; esac
done
[ "$(archive_state j1.db)" = "$state" ] || fail "re-importing identical content changed the archive"

# Problems in the first, middle and last batches of both files.
rm -rf bad && cp -r good bad
python3 - bad <<'PY'
import json, sys
d = sys.argv[1]
cases = open(f"{d}/cases.jsonl", encoding="utf-8").read().split("\n")[:-1]
cases[4] = cases[4].replace('"variant":', '"variant":,', 1)                 # syntax error, line 5
r = json.loads(cases[299]); r["id"] = json.loads(cases[298])["id"]; cases[299] = json.dumps(r, separators=(",", ":"))  # duplicate id
r = json.loads(cases[499]); r["variant"] = 0; cases[499] = json.dumps(r, separators=(",", ":"))  # schema
r = json.loads(cases[699]); r["record"] = "bogus"; cases[699] = json.dumps(r, separators=(",", ":"))  # unknown type
r = json.loads(cases[998]); r["title"] = 5; cases[998] = json.dumps(r, separators=(",", ":"))  # schema, last batch
cases.insert(99, "")                                                           # empty line 100
open(f"{d}/cases.jsonl", "w", encoding="utf-8").write("\n".join(cases) + "\n")
runs = open(f"{d}/runs.jsonl", encoding="utf-8").read().split("\n")[:-1]
for i in (9, 1500, 2999):
    r = json.loads(runs[i]); r["digest"] = "0" * 64; runs[i] = json.dumps(r, separators=(",", ":"))
open(f"{d}/runs.jsonl", "w", encoding="utf-8").write("\n".join(runs) + "\n")
PY
resum_bundle bad
before=$(archive_state j1.db)
expect_status 2 "$FAILMAP" --db j1.db import --jobs 1 bad
err_one=$err
for t in "bad/cases.jsonl:5:" "bad/cases.jsonl:100: empty line" "bad/cases.jsonl:301: case id" "bad/cases.jsonl:501: field 'variant'" \
         "bad/cases.jsonl:701: field 'record': unknown record type 'bogus'" "bad/cases.jsonl:1000: field 'title'" \
         "bad/runs.jsonl:10: field 'digest'" "bad/runs.jsonl:1501: field 'digest'" "bad/runs.jsonl:3000: field 'digest'"; do
  expect_error_mentions "$t"
done
for jobs in 2 3 8; do
  expect_status 2 "$FAILMAP" --db j1.db import --jobs "$jobs" bad
  [ "$err" = "$err_one" ] || fail "import --jobs $jobs problems differ from --jobs 1: $(diff <(echo "$err_one") <(echo "$err"))"
done
[ "$(archive_state j1.db)" = "$before" ] || fail "a refused import changed the archive"

expect_status 2 "$FAILMAP" --db j1.db import --jobs 0 good
expect_error_mentions "--jobs: expected a whole number of threads from 1 to 256, got '0'"
