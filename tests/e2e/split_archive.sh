# failmap split over the archive: refusals and the leakage audit.
"$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
# A second case of the same mechanism, same binding: same unit, same content.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["id"] = "FA-2"; del c["published"]
json.dump(c, open("FA-2.json", "w"))
PY
"$FAILMAP" import FA-2.json >/dev/null
before=$(archive_state)

# Both cases form one unit (mechanism gradient-accumulation-weighting, tag
# gradient-accumulation): it cannot be divided into two splits or folds.
expect_status 2 "$FAILMAP" split --ratios train=0.5,test=0.5 --out o1
expect_error_mentions "cannot fill 2 splits from 1 unit(s): a unit is never divided"
expect_status 2 "$FAILMAP" split --folds 2 --out o2
expect_error_mentions "cannot make 2 folds from 1 unit(s)"
expect_status 2 "$FAILMAP" split --ratios train=0.5,test=0.5 --group-by nothing --out o3
expect_error_mentions "--group-by"
[ ! -e o1 ] && [ ! -e o2 ] && [ ! -e o3 ] || fail "a refused split wrote a folder"

# Audit of hand-made folders: the unit on two sides leaks, and so does the
# identical content; an id the archive does not know is listed too.
mkdir leak clean
printf '{"id":"FA-98921","split":"train"}\n{"id":"FA-2","split":"test"}\n{"id":"FA-404","split":"test"}\n' \
  > leak/mine.jsonl
expect_status 1 "$FAILMAP" split check leak
[ "$out" = 'LEAK: unit group:gradient-accumulation is in more than one split:
  test: FA-2
  train: FA-98921
LEAK: duplicate content content:eec2a8bee4534afd6b25862c9bf1b42ccdec11860f68064b6078ba77fb9fbca2 is in more than one split:
  test: FA-2
  train: FA-98921
UNKNOWN: id FA-404 is no case in the archive (mine.jsonl:3)
LEAKING: 3 line(s), 2 of 2 case(s) in 1 unit(s)' ] || fail "check output: $out"
# An id holding an escape sequence, in a file whose name holds one: both
# shown escaped (the audited folder may come from anywhere).
mkdir esc
printf '{"id":"FA-\\u001b[2J","split":"test"}\n' > esc/$'x\x1b]0;t\x07.jsonl'
expect_status 1 "$FAILMAP" split check esc
[ "$(head -n 1 stdout.txt)" = 'UNKNOWN: id FA-\x1b[2J is no case in the archive (x\x1b]0;t\x07.jsonl:1)' ] || fail "escaped: $(cat -v stdout.txt)"
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' stdout.txt && fail "split check printed a raw control character: $(cat -v stdout.txt)"
printf '{"id":"FA-98921"}\n{"id":"FA-2"}\n' > clean/train.jsonl
printf '{"record":"run","case":"FA-2"}\n' > clean/runs.jsonl
expect_status 0 "$FAILMAP" split check clean
[ "$out" = "clean: 2 line(s), 2 of 2 case(s) in 1 unit(s)" ] || fail "clean output: $out"
printf '{"id":"FA-98921"}\n{"id":' > clean/broken.jsonl
expect_status 2 "$FAILMAP" split check clean
expect_error_mentions "broken.jsonl:2"
# A line copied from train.jsonl into test.jsonl keeps its "split":"train":
# the file says where it is, so the case is on both sides (the trial found
# this reported clean). A file naming two or more splits stays a listing.
mkdir copied
printf '{"record":"case","id":"FA-98921","split":"train"}\n' > copied/train.jsonl
printf '{"record":"case","id":"FA-98921","split":"train"}\n{"record":"case","id":"FA-2","split":"test"}\n' > copied/test.jsonl
expect_status 1 "$FAILMAP" split check copied
[ "$out" = 'LEAK: unit group:gradient-accumulation is in more than one split:
  test: FA-2 FA-98921
  train: FA-98921
LEAK: duplicate content content:eec2a8bee4534afd6b25862c9bf1b42ccdec11860f68064b6078ba77fb9fbca2 is in more than one split:
  test: FA-2 FA-98921
  train: FA-98921
LEAKING: 3 line(s), 2 of 2 case(s) in 1 unit(s)' ] || fail "a copied line: $out"
# failmap's own folder: a line of train.jsonl appended to test.jsonl, or
# moved there, with SHA256SUMS redone (the re-trial's D1): the manifest names
# the splits, so test.jsonl is the test split's file.
"$FAILMAP" --db own.db import "$SRC/cases/" >/dev/null
expect_status 0 "$FAILMAP" --db own.db split --ratios train=0.8,test=0.2 --out own
head -1 own/train.jsonl >> own/test.jsonl
cp -r own own_sums
(cd own_sums && sha256sum $(ls | grep -v SHA256SUMS) > SHA256SUMS)
# With SHA256SUMS alone redone, the manifest's file digests differ.
expect_status 1 "$FAILMAP" --db own.db split check own_sums
expect_error_mentions "own_sums/test.jsonl: SHA-256 differs from manifest.json's files"
# With the manifest's digests redone too, the copied line is still a leak.
python3 - own/manifest.json <<'PY'
import hashlib, json, os, sys
path = sys.argv[1]; m = json.load(open(path)); d = os.path.dirname(path)
m["files"] = {n: hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest() for n in m["files"]}
open(path, "w").write(json.dumps(m))
PY
(cd own && sha256sum $(ls | grep -v SHA256SUMS) > SHA256SUMS)
expect_status 1 "$FAILMAP" --db own.db split check own
echo "$out" | grep -q "^LEAK: unit " || fail "a line copied into failmap's test.jsonl: $out"
expect_status 2 "$FAILMAP" split check nowhere
expect_error_mentions "nowhere: no such folder"
[ "$(archive_state)" = "$before" ] || fail "split changed the archive"

# An evaluation_group edited with sqlite3 into something other than an
# array of strings is refused, not read as the object's values or a
# one-string group (the archive's reader iterated whatever it parsed).
cp "$FAILMAP_DB" eg.db
sqlite3 eg.db "UPDATE cases SET evaluation_group = '{\"a\": \"gradient-accumulation\"}' WHERE id = 'FA-2'"
expect_status 2 "$FAILMAP" --db eg.db split --ratios train=0.5,test=0.5 --out o5
[ "$(cat stderr.txt)" = "failmap: error: eg.db: case FA-2, field evaluation_group: expected a JSON array of strings, got an object" ] ||
  fail "evaluation_group object: $(cat stderr.txt)"
[ ! -e o5 ] || fail "a refused split wrote a folder"

# An empty archive is refused.
sqlite3 "$FAILMAP_DB" "DELETE FROM cases"
expect_status 2 "$FAILMAP" split --ratios train=0.5,test=0.5 --out o4
expect_error_mentions "the archive holds no cases"

# A split folder given to import is named as such, in one line (its
# manifest.json read as a bundle's gave seven follow-on errors).
"$FAILMAP" --db s2.db import "$SRC/cases/" >/dev/null
expect_status 0 "$FAILMAP" --db s2.db split --ratios train=0.5,test=0.5 --out asbundle
expect_status 2 "$FAILMAP" --db other.db import asbundle
[ "$(cat stderr.txt)" = "failmap: error: asbundle/manifest.json: field 'format': 'failmap-split' is not a failmap bundle (a split folder: \`failmap verify-bundle asbundle\` checks it, \`failmap split check\` audits it) (nothing was imported)" ] ||
  fail "split folder imported as a bundle: $(cat stderr.txt)"
