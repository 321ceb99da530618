# failmap split check names an id a file lists twice for one split
# (DUPLICATE, exit 1, text and --json), while failmap's own folders, which
# claim every item in its split's file and again in assignments.jsonl, stay clean.
cat > items.jsonl <<'J'
{"id":"a1","group":"A"}
{"id":"b1","group":"B"}
{"id":"c1","group":"C"}
J
mkdir dup
printf '{"id":"a1"}\n{"id":"b1"}\n{"id":"a1"}\n' > dup/train.jsonl
printf '{"id":"c1"}\n' > dup/test.jsonl
expect_status 1 "$FAILMAP" split check dup --input items.jsonl --group-field group
[ "$out" = 'DUPLICATE: id "a1" is listed 2 times for split train (train.jsonl:1, train.jsonl:3)
LEAKING: 4 line(s), 3 of 3 item(s) in 3 unit(s)' ] || fail "check output: $out"
expect_status 1 "$FAILMAP" split check dup --input items.jsonl --group-field group --json
[ "$out" = '{"clean":false,"lines":4,"claimed_items":3,"items":3,"units":3,"leaks":[],"unknown_ids":[],"duplicates":[{"id":"\"a1\"","split":"train","where":["train.jsonl:1","train.jsonl:3"]}]}' ] ||
  fail "check --json: $out"

# One file with split fields: b1 three times for test and once for train is a
# leak of unit B and a duplicate in test; c1 in two files for one split is
# neither (that is how failmap's assignments.jsonl claims it again).
mkdir mixed
printf '%s\n' '{"id":"b1","split":"test"}' '{"id":"a1","split":"train"}' '{"id":"b1","split":"train"}' \
  '{"id":"b1","split":"test"}' '{"id":"c1","split":"test"}' '{"id":"b1","split":"test"}' > mixed/all.jsonl
printf '{"id":"c1"}\n' > mixed/test.jsonl
expect_status 1 "$FAILMAP" split check mixed --input items.jsonl --group-field group
[ "$out" = 'LEAK: unit group="B" is in more than one split:
  test: "b1"
  train: "b1"
DUPLICATE: id "b1" is listed 3 times for split test (all.jsonl:1, all.jsonl:4, all.jsonl:6)
LEAKING: 7 line(s), 3 of 3 item(s) in 3 unit(s)' ] || fail "mixed check output: $out"

# failmap's own folder of the listing: clean, no duplicate reported.
expect_status 0 "$FAILMAP" split --input items.jsonl --group-field group --ratios train=0.67,test=0.33 --out own
expect_status 0 "$FAILMAP" split check own --input items.jsonl --group-field group --json
[ "$out" = '{"clean":true,"lines":6,"claimed_items":3,"items":3,"units":3,"leaks":[],"unknown_ids":[],"duplicates":[]}' ] ||
  fail "own folder: $out"

# The archive: a case listed twice for train in a hand-made folder.
"$FAILMAP" import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11257.json" >/dev/null
mkdir twice
printf '{"id":"FA-98921"}\n{"id":"FA-98921"}\n' > twice/train.jsonl
printf '{"id":"FA-11257"}\n' > twice/test.jsonl
expect_status 1 "$FAILMAP" split check twice
[ "$out" = 'DUPLICATE: id FA-98921 is listed 2 times for split train (train.jsonl:1, train.jsonl:2)
LEAKING: 3 line(s), 2 of 2 case(s) in 2 unit(s)' ] || fail "archive check output: $out"
expect_status 1 "$FAILMAP" split check twice --json
[ "$out" = '{"clean":false,"lines":3,"claimed_items":2,"items":2,"units":2,"leaks":[],"unknown_ids":[],"duplicates":[{"id":"FA-98921","split":"train","where":["train.jsonl:1","train.jsonl:2"]}]}' ] ||
  fail "archive check --json: $out"
expect_status 0 "$FAILMAP" split --ratios train=0.5,test=0.5 --out archive_own
expect_status 0 "$FAILMAP" split check archive_own
[ "$out" = "clean: 4 line(s), 2 of 2 case(s) in 2 unit(s)" ] || fail "archive own folder: $out"
