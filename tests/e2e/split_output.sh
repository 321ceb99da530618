# failmap split over the repository's cases: the folder format, the open
# test tier, determinism and the audit of failmap's own output.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
"$FAILMAP" -q import "$SRC/cases" >/dev/null
checks_may_fail "$FAILMAP" -q run --all >/dev/null   # records every run, repairs included
before=$(archive_state)

expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --seed 1 --test-tier open --out a
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --seed 1 --test-tier open --out b
diff -r a b >/dev/null || fail "two runs with one seed differ"
(cd a && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not verify"
[ "$(LC_ALL=C ls a | tr '\n' ' ')" = "SHA256SUMS assignments.jsonl manifest.json test.jsonl train.jsonl " ] || fail "files: $(ls a)"
cases=$("$FAILMAP" list --json | wc -l)
[ "$(wc -l < a/assignments.jsonl)" = "$cases" ] || fail "assignments.jsonl does not list every case"
# The open test side shows no repair; the member train side keeps its repaired runs.
! grep -q '"strategy":"repaired"' a/test.jsonl || fail "a repaired run leaked into the open test split"
grep -q '"strategy":"repaired"' a/train.jsonl || fail "train lost its repaired runs"
! grep -q '"tier":"member"' a/test.jsonl || fail "test split not at the open tier"
grep -q '"record":"run".*"evaluation_group":\[' a/test.jsonl || fail "run records lack evaluation_group"
head -1 a/train.jsonl | grep -q '^{"record":"case",.*"unit":"[^"]*","split":"train"}$' || fail "case record shape"
# Balance: the achieved test share is within one largest unit of 0.2.
python3 - a/manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["format"] == "failmap-split" and m["mode"] == "ratios" and m["seed"] == 1, m
test = m["splits"][1]
assert abs(test["achieved"] - 0.2) * m["items"] <= m["largest_unit"], m
assert sum(s["items"] for s in m["splits"]) == m["items"], m
assert m["files"]["assignments.jsonl"] == open("a/SHA256SUMS").read().split()[0], m
PY
# Every unit on one side, as the audit confirms.
python3 - a/assignments.jsonl <<'PY'
import json, sys
seen = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    seen.setdefault(r["unit"], set()).add(r["split"])
assert all(len(s) == 1 for s in seen.values()), seen
PY
expect_status 0 "$FAILMAP" split check a
grep -q "^clean: " stdout.txt || fail "check: $out"

# Folds and content grouping run on the same archive; the archive is unchanged.
expect_status 0 "$FAILMAP" split --folds 2 --group-by content --seed 3 --out folds
grep -q '"group_by":\["mechanism","evaluation_group","content"\]' folds/manifest.json || fail "group_by"
expect_status 0 "$FAILMAP" split check folds
[ "$(archive_state)" = "$before" ] || fail "split changed the archive"
