# Untrusted input limits (src/encoding/limits.h; docs/README.md for users, which the errors name, never a source
# path): each cap is one error naming the
# file (and line), exit status 2, archive unchanged. Oversized inputs are made
# here with python3.
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
before=$(archive_state)

python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
# A whole file beyond k_max_file_bytes (16 MiB): valid JSON, just large.
c = dict(case); c["id"] = "FA-BIG"; c["summary"] = "x" * (16 * 1024 * 1024)
json.dump(c, open("big.json", "w"))
# Nesting beyond k_max_json_depth (64).
c = dict(case); c["id"] = "FA-DEEP"; c["params"] = {"N": 1, "x": json.loads("[" * 65 + "]" * 65)}
json.dump(c, open("deep.json", "w"))
# A list beyond k_max_list_length (1,000,000) as a fixture argument.
c = json.loads(json.dumps(case)); c["id"] = "FA-LONG"; c["fixtures"][0]["args"][0] = [1] * 1000001
json.dump(c, open("long_list.json", "w"))
# Numbers: an integer beyond int64 and a float literal overflowing a double.
text = json.dumps(dict(case, id="FA-NUM"))
open("int64.json", "w").write(text.replace('"N": 1', '"N": 9223372036854775808'))
open("float.json", "w").write(text.replace('"N": 1', '"N": 1e309'))
# JSON Lines: a line beyond k_max_line_bytes (1 MiB) in a split folder, and in a listing.
import os
os.mkdir("folder")
with open("folder/train.jsonl", "w") as f:
    f.write('{"id": "a"}\n')
    f.write('{"id": "b", "pad": "' + "y" * (1 << 20) + '"}\n')
    f.write('{"id": "c"}\n')
with open("items.jsonl", "w") as f:
    f.write('{"id": 1, "group": "g"}\n{"id": 2, "group": "g", "pad": "' + "z" * (1 << 20) + '"}\n')
with open("deep_items.jsonl", "w") as f:
    f.write('{"id": 1, "group": "g"}\n{"id": 2, "group": "g", "x": ' + "[" * 100000 + "]" * 100000 + '}\n')
PY

expect_status 2 "$FAILMAP" import big.json
expect_error_mentions "big.json: larger than the 16 MiB limit"
expect_status 2 "$FAILMAP" import deep.json
# The path names the member that opens the 65th level (it ended in "[]").
[ "$err" = "failmap: error: deep.json: nesting deeper than 64 (field 'params.x$(printf '[0]%.0s' $(seq 62))') (nothing was imported)" ] ||
  fail "deep.json: $err"
expect_status 2 "$FAILMAP" import long_list.json
expect_error_mentions "long_list.json"
expect_error_mentions "list longer than 1000000"
expect_status 2 "$FAILMAP" import int64.json
expect_error_mentions "int64.json: integer 9223372036854775808 exceeds int64 (field 'params.N')"
expect_status 2 "$FAILMAP" import float.json
expect_error_mentions "float.json:1:"
expect_error_mentions "number '1e309' is beyond the range of a 64-bit float (at most about 1.8e308)"
[ "$(archive_state)" = "$before" ] || fail "a refused import changed the archive"

expect_status 2 "$FAILMAP" split check folder
expect_error_mentions "train.jsonl:2: line longer than the 1 MiB limit"
expect_status 2 "$FAILMAP" split --input items.jsonl --group-field group --ratios a=0.5,b=0.5 --out out1
expect_error_mentions "items.jsonl:2: line longer than the 1 MiB limit"
[ ! -e out1 ] || fail "a refused listing wrote a split"
expect_status 2 "$FAILMAP" split --input deep_items.jsonl --group-field group --ratios a=0.5,b=0.5 --out out2
expect_error_mentions "deep_items.jsonl:2: nesting deeper than 64 (docs/README.md, \"Limits on untrusted input\")"
[ "$(archive_state)" = "$before" ] || fail "a refused split changed the archive"

# A published page: each line within k_max_line_bytes (1 MiB), as in JSON Lines. The summary (line 3) of the
# seed page made 1 MiB + 1 bytes long is refused naming file and line; exactly 1 MiB is not (boundary).
python3 - "$SEED" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for name, size in (("long_line.txt", (1 << 20) + 1), ("at_cap.txt", 1 << 20)):
    page = list(lines)
    page[0] = page[0].replace("FA-98921", "FA-CAP")
    page[2] = "s" * size
    open(name, "w", encoding="utf-8", newline="").write("\n".join(page))
PY
expect_status 2 "$FAILMAP" import long_line.txt
expect_error_mentions "long_line.txt:3: line longer than the 1 MiB limit (docs/README.md, \"Limits on untrusted input\")"
[ "$(grep -c 'line longer' stderr.txt)" = 1 ] || fail "one over-long line, one error: $err"
[ "$(archive_state)" = "$before" ] || fail "a refused page changed the archive"
expect_status 0 "$FAILMAP" --db at_cap.db import at_cap.txt
[ "$(sqlite3 at_cap.db "select length(summary) from cases join case_texts using (text_id) where id = 'FA-CAP'")" = 1048576 ] ||
  fail "the 1 MiB summary was not kept whole"
