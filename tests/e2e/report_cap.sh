# A file wrong on every line gives at most 100 error lines, then one that counts the rest, then the summary
# (before: a line per problem, 300,001 lines for 100,000 lines of {"case": 1}).
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
python3 -c '
for k in range(150): print("{\"case\": 1, \"model\": \"m\", \"sample\": %d, \"source\": \"\"}" % k)' > bad.jsonl
expect_status 2 "$FAILMAP" grade bad.jsonl --out graded --sandbox none
[ "$(wc -l < stderr.txt)" -eq 102 ] || fail "$(wc -l < stderr.txt) error lines"
[ "$(sed -n 1p stderr.txt)" = "failmap: error: bad.jsonl:1: field 'case': expected a string, got the number 1" ] ||
  fail "first line: $(sed -n 1p stderr.txt)"
[ "$(sed -n 101p stderr.txt)" = "failmap: error: ... and 50 more problem(s), not shown (the first 100 are above)" ] ||
  fail "line 101: $(sed -n 101p stderr.txt)"
[ "$(sed -n 102p stderr.txt)" = "failmap: error: 150 problem(s) in bad.jsonl; nothing was graded" ] || fail "line 102: $(sed -n 102p stderr.txt)"
[ ! -e graded ] || fail "graded/ was written"
# import: the same cap, the summary last.
mkdir many
for k in $(seq 1 120); do echo '{"id": 1}' > "many/c$k.json"; done
expect_status 2 "$FAILMAP" import many
[ "$(grep -c '^failmap: error: many/c' stderr.txt)" -le 100 ] || fail "import printed more than 100 problems"
grep -qF "more problem(s), not shown (the first 100 are above)" stderr.txt || fail "import did not count the rest: $(tail -3 stderr.txt)"
tail -1 stderr.txt | grep -q "nothing was imported" || fail "import's last line: $(tail -1 stderr.txt)"
