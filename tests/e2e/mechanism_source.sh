# Every mechanism's source URL (the public report it is
# grounded in) travels with it: `show` names it
# (text and --json) and each mechanisms.jsonl record of a bundle carries it,
# at both tiers, as the compiled registry holds it.
"$FAILMAP" import "$SRC/cases/" >/dev/null
expect_status 0 "$FAILMAP" show FA-98921
echo "$out" | grep -qx "source:           https://github.com/huggingface/transformers/issues/2995" ||
  fail "show does not name the source: $out"
expect_status 0 "$FAILMAP" show FA-98921 --json
[ "$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["mechanism_source"])')" = \
  "https://github.com/huggingface/transformers/issues/2995" ] || fail "show --json: $out"
needs_repairs  # an open bundle carries each case's repair commitment, which the open build cannot compute
for tier in open member; do
  expect_status 0 "$FAILMAP" export --format jsonl --tier $tier --out b-$tier
  python3 - b-$tier/mechanisms.jsonl "$SRC/cases" <<'PY'
import json, pathlib, sys
records = [json.loads(line) for line in open(sys.argv[1])]
shipped = {json.loads(p.read_text())["mechanism"] for p in pathlib.Path(sys.argv[2]).glob("*.json")}
assert {r["id"] for r in records} == shipped, "a mechanism of the shipped cases is missing"
for r in records:
    assert r["source"].startswith("https://github.com/"), r["id"]
    assert list(r)[:4] == ["record", "id", "title", "source"], list(r)[:4]
by_id = {r["id"]: r["source"] for r in records}
assert by_id["fp16-sum-accumulation"] == "https://github.com/tensorflow/tensorflow/issues/27544", by_id
PY
  expect_status 0 "$FAILMAP" verify-bundle b-$tier
done
