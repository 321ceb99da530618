# Every kind of folder failmap writes — bundle, page, task and site exports,
# split folders, gradings (grade and grade merge) — carries manifest.json,
# is signed with --sign, and `failmap verify-bundle` checks it: the
# "check: ..." advice each command prints runs as printed and passes; a
# changed byte in any data file of any kind is a mismatch (summary starting
# "mismatch:"); another manifest's signature is "signature INVALID:";
# --require-signature fails an unchecked or missing signature; records
# edited with the sums redone are caught by the kind's own checks.
needs_repairs  # a bundle export computes each case's repair commitment, which the open build cannot
"$FAILMAP" import "$(cases_dir)" >/dev/null
mkdir keys
openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null && openssl pkey -in key.pem -pubout -out pub.pem
openssl genpkey -algorithm ed25519 -out keys/other.pem 2>/dev/null
ncases=$("$FAILMAP" list --json | wc -l)
PRED="$SRC/tests/data/predictions/demo.jsonl"
SANDBOX=bwrap; "$FAILMAP" grade "$PRED" --out probe --no-record >/dev/null 2>&1 || SANDBOX=none
rm -rf probe

# Runs the "check: failmap verify-bundle ..." of the last command's stderr as printed
# (with this build's binary for "failmap"); leaves its output in $out.
run_advice() {
  local advice
  advice=$(grep -o 'check: failmap verify-bundle [^)]*' stderr.txt) || fail "no check advice in: $(cat stderr.txt)"
  advice=${advice#check: failmap }
  set +e
  eval "\"\$FAILMAP\" $advice" >stdout.txt 2>stderr.txt
  local st=$?
  set -e
  out=$(cat stdout.txt)
  [ $st = 0 ] || fail "'failmap $advice' exited $st: $out $(cat stderr.txt)"
}

# Each kind, signed; the advice it prints, run as printed.
expect_status 0 "$FAILMAP" export --format jsonl --sign key.pem --out k-bundle FA-98921
run_advice
[ "$out" = "verified k-bundle (open tier): 5 file(s), 1 mechanism(s), 1 case(s), 0 run(s); signature valid: everything matches" ] || fail "bundle: $out"
expect_status 0 "$FAILMAP" export --format pages --sign key.pem --out k-pages FA-98921
run_advice
[ "$out" = "verified k-pages (open tier): 3 file(s), 0 mechanism(s), 1 case(s), 0 run(s); signature valid: everything matches" ] || fail "pages: $out"
expect_status 0 "$FAILMAP" export --format tasks --sign key.pem --out k-tasks
run_advice
[ "$out" = "verified k-tasks (task export, open tier): 3 file(s), $ncases task(s); signature valid: everything matches" ] || fail "tasks: $out"
expect_status 0 "$FAILMAP" export --format site --sign key.pem --out k-site
run_advice
pages=$(ls k-site/*.html | wc -l)
[ "$out" = "verified k-site (site, open tier): $((pages + 3)) file(s), $pages page(s); signature valid: everything matches" ] || fail "site: $out"
expect_status 0 "$FAILMAP" split --ratios train=0.8,test=0.2 --format tasks --sign key.pem --out k-split
run_advice
[ "$out" = "verified k-split (split folder): 5 file(s), $ncases item(s); signature valid: everything matches" ] || fail "split: $out"
expect_status 0 "$FAILMAP" grade "$PRED" --sandbox $SANDBOX --no-record --sign key.pem --out k-grading
run_advice
[ "$out" = "verified k-grading (grading): 4 file(s), 6 result(s); signature valid: everything matches" ] || fail "grading: $out"
for i in 1 2; do "$FAILMAP" -q grade "$PRED" --sandbox $SANDBOX --no-record --shard $i/2 --out shard-$i >/dev/null; done
expect_status 0 "$FAILMAP" grade merge shard-1 shard-2 --sign key.pem --out k-merged
run_advice
[ "$out" = "verified k-merged (grading): 4 file(s), 6 result(s); signature valid: everything matches" ] || fail "merged: $out"
cmp k-merged/manifest.json k-grading/manifest.json || fail "a merge's manifest differs from the unsharded grading's"
# A grading's manifest (schema/GRADING.md "Manifest").
python3 - k-grading <<'PY' || fail "grading manifest"
import hashlib, json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
assert m["format"] == "failmap-grading" and m["format_version"] == 1 and m["counts"] == {"result": 6}, m
assert m["files"] == ["results.jsonl", "summary.json"] and "export_tier" not in m, m
for f in m["files"]:
    assert m["sha256"][f] == hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest(), f
PY
(cd k-grading && sha256sum --quiet -c SHA256SUMS) || fail "a grading's SHA256SUMS"
(cd k-split && sha256sum --quiet -c SHA256SUMS) || fail "a split's SHA256SUMS"
openssl pkeyutl -verify -rawin -pubin -inkey pub.pem -in k-split/manifest.json -sigfile k-split/manifest.json.sig >/dev/null ||
  fail "openssl does not verify a split's signature"

# Unchecked and missing signatures with --require-signature: exit 1, said first.
expect_status 0 "$FAILMAP" verify-bundle k-tasks
[ "$(tail -1 stdout.txt)" = "verified k-tasks (task export, open tier): 3 file(s), $ncases task(s); signature present, not checked (no --pubkey): everything matches" ] ||
  fail "unchecked: $out"
expect_status 1 "$FAILMAP" verify-bundle k-tasks --require-signature
[ "$(tail -1 stdout.txt)" = "signature not checked: k-tasks (task export, open tier): 3 file(s), $ncases task(s); signature present, not checked (no --pubkey) (--require-signature needs --pubkey): everything else matches" ] ||
  fail "--require-signature, unchecked: $out"
"$FAILMAP" -q grade "$PRED" --sandbox $SANDBOX --no-record --out unsigned >/dev/null
expect_status 1 "$FAILMAP" verify-bundle unsigned --require-signature --pubkey pub.pem
[ "$(tail -1 stdout.txt)" = "signature missing: unsigned (grading): 3 file(s), 6 result(s); signature absent (the grading is not signed) (--require-signature): 1 mismatch(es)" ] ||
  fail "--require-signature, unsigned: $out"
expect_status 1 "$FAILMAP" verify-bundle unsigned --require-signature
tail -1 stdout.txt | grep -q "^signature missing: unsigned (grading): " || fail "--require-signature, unsigned, no key: $out"
expect_status 0 "$FAILMAP" verify-bundle unsigned
tail -1 stdout.txt | grep -q "^verified unsigned (grading): 3 file(s), 6 result(s); signature absent: everything matches$" || fail "unsigned: $out"

# resum DIR: the manifest's digests and SHA256SUMS redone after an edit, the signature removed (what
# anyone can do); a split's manifest lists its files as an object of name: SHA-256.
resum() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
if os.path.exists(os.path.join(d, "manifest.json.sig")):
    os.remove(os.path.join(d, "manifest.json.sig"))
m = json.load(open(os.path.join(d, "manifest.json"), encoding="utf-8"))
if isinstance(m["files"], dict):
    m["files"] = {f: h(f) for f in m["files"]}
else:
    m["sha256"] = {f: h(f) for f in m["files"]}
open(os.path.join(d, "manifest.json"), "w", encoding="utf-8").write(json.dumps(m, ensure_ascii=False, separators=(",", ":")) + "\n")
names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
PY
}

# One more byte in each data file of each kind: exit 1, the file named, the summary starting "mismatch:".
tampered=0
for dir in k-bundle k-pages k-tasks k-site k-split k-grading k-merged; do
  for f in $(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]+"/manifest.json")); print(" ".join(m["files"]))' "$dir"); do
    cp "$dir/$f" saved
    printf '\n' >>"$dir/$f"
    expect_status 1 "$FAILMAP" verify-bundle "$dir" --pubkey pub.pem
    grep -qF "'$f'" stdout.txt || fail "a changed $dir/$f is not named: $out"
    tail -1 stdout.txt | grep -q "^mismatch: $dir (.*; signature valid: [0-9]* mismatch(es)$" || fail "a changed $dir/$f: $out"
    mv saved "$dir/$f"
    tampered=$((tampered + 1))
  done
  expect_status 0 "$FAILMAP" verify-bundle "$dir" --pubkey pub.pem
done
[ $tampered -eq $((3 + 1 + 1 + pages + 1 + 3 + 2 + 2)) ] || fail "tampered $tampered files"

# Another manifest's signature in place of a folder's own: "signature INVALID" first.
for dir in k-tasks k-site k-split; do
  cp -r $dir bad-$dir && cp k-grading/manifest.json.sig bad-$dir/manifest.json.sig
  python3 -c '
import hashlib, os, sys
d = sys.argv[1]; names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest() + "  " + f + "\n" for f in names))' bad-$dir
  expect_status 1 "$FAILMAP" verify-bundle bad-$dir --pubkey pub.pem
  tail -1 stdout.txt | grep -q "^signature INVALID: bad-$dir (.*; signature INVALID: 1 mismatch(es)$" || fail "bad-$dir: $out"
done

# Records edited and the sums redone: each kind's own checks.
cp -r k-tasks e-tasks && head -1 k-tasks/tasks.jsonl >>e-tasks/tasks.jsonl && resum e-tasks
expect_status 1 "$FAILMAP" verify-bundle e-tasks
first=$(head -1 k-tasks/tasks.jsonl | python3 -c 'import json,sys; print(json.load(sys.stdin)["task_id"])')
[ "$out" = "e-tasks/tasks.jsonl:$((ncases + 1)): field 'task_id': task $first appears twice (first at line 1)
e-tasks/manifest.json: field 'counts.task': disagrees with the folder's records: expected $((ncases + 1)), found $ncases
mismatch: e-tasks (task export, open tier): 2 file(s), $((ncases + 1)) task(s); signature absent: 2 mismatch(es)" ] || fail "task twice: $out"

cp -r k-grading e-grading
python3 - e-grading/results.jsonl <<'PY'
import sys
p = sys.argv[1]; lines = open(p, encoding="utf-8").read().splitlines()
assert '"verdict":"resolved"' in lines[0], lines[0]
lines[0] = lines[0].replace('"verdict":"resolved"', '"verdict":"unresolved"', 1)
open(p, "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
resum e-grading
expect_status 1 "$FAILMAP" verify-bundle e-grading
model=$(head -1 k-grading/results.jsonl | python3 -c 'import json,sys; print(json.load(sys.stdin)["model"])')
[ "$out" = "e-grading/summary.json: field 'models.$model.resolved': disagrees with the verdicts of results.jsonl: expected 0, found 1
e-grading/summary.json: field 'models.$model.unresolved': disagrees with the verdicts of results.jsonl: expected 2, found 1
mismatch: e-grading (grading): 3 file(s), 6 result(s); signature absent: 2 mismatch(es)" ] || fail "verdict edited: $out"

cp -r k-split e-split && head -1 k-split/train.jsonl >>e-split/test.jsonl && resum e-split
expect_status 1 "$FAILMAP" verify-bundle e-split
moved=$(head -1 k-split/train.jsonl | python3 -c 'import json,sys; print(json.load(sys.stdin)["task_id"])')
ntest=$(wc -l <k-split/test.jsonl)
[ "$out" = "e-split/train.jsonl:1: field 'task_id': item \"$moved\" is in split test too (test.jsonl:$((ntest + 1)))
e-split/manifest.json: field 'splits[1].items': disagrees with test.jsonl: expected $((ntest + 1)), found $ntest
mismatch: e-split (split folder): 4 file(s), $((ncases + 1)) item(s); signature absent: 2 mismatch(es)" ] || fail "item in two splits: $out"

cp -r k-site e-site && sed -i 's|</main>|<h2>3 / The repair</h2></main>|' e-site/case-FA-98921.html && resum e-site
expect_status 1 "$FAILMAP" verify-bundle e-site
[ "$(head -1 stdout.txt)" = "e-site/case-FA-98921.html: a repair section in an open-tier site" ] || fail "repair in an open site: $out"

# import reads bundles and page exports only; another kind is named in one line.
expect_status 2 "$FAILMAP" --db other.db import k-tasks
[ "$err" = "failmap: error: k-tasks/manifest.json: field 'format': 'failmap-tasks' is not a failmap bundle (a task export: \`failmap verify-bundle k-tasks\` checks it) (nothing was imported)" ] ||
  fail "a task export imported: $err"
# --open compares two bundles only.
expect_status 2 "$FAILMAP" verify-bundle k-bundle --open k-tasks
expect_error_mentions "--open compares two JSON Lines bundles"
# A bad key is refused before anything is written.
expect_status 2 "$FAILMAP" grade "$PRED" --sandbox $SANDBOX --no-record --sign pub.pem --out nokey
[ ! -e nokey ] || fail "a refused --sign left nokey"
expect_status 2 "$FAILMAP" split --ratios train=0.5,test=0.5 --sign pub.pem --out nokey
[ ! -e nokey ] || fail "a refused --sign left nokey"
