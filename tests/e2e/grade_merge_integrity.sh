# grade merge judges every results line again: SHA256SUMS is unkeyed, so
# an edited shard with recomputed sums would otherwise pass and be counted.
# Merge re-derives, from the line's actual values and
# exceptions and the archive's case, every field failmap derives, and refuses
# a line where one differs (file:line, field, stored, recomputed), exit 2,
# writing nothing. Honest shards of awkward values (NaN, dicts, -0.0, control
# characters, refused values, errors, held-out bindings) still merge into the
# bytes of the unsharded run.
expect_status 0 "$FAILMAP" import "$SRC/cases/"
python3 - "$SRC/tests/data/predictions/demo.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
head = "def solve(batch_sizes, target):\n"
for i, body in enumerate([
    "    return float('nan')\n",
    "    return {'b': 1, 'a': [2.5, None, True]}\n",
    "    return -0.0 if batch_sizes else 1e300\n",
    "    return '\\x1b[31m\\n\"\\u00e9\\U0001f600'\n",
    "    class I(int):\n        def __eq__(self, o): return True\n    return I(3)\n",
    "    import os\n    if len(batch_sizes) > 2: os._exit(0)\n    return sum(batch_sizes)\n",
    "    return True\n",
]):
    rows.append({"case": "FA-98921", "model": "awkward", "sample": i, "source": head + body})
open("preds.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
expect_status 0 "$FAILMAP" grade preds.jsonl --out whole --held-out 2 --no-record
for i in 1 2; do expect_status 0 "$FAILMAP" grade preds.jsonl --out "s$i" --shard "$i/2" --held-out 2 --no-record; done
expect_status 0 "$FAILMAP" grade merge s2 s1 --out merged
diff whole/results.jsonl merged/results.jsonl >/dev/null || fail "merged results differ from the unsharded run"
diff whole/summary.json merged/summary.json >/dev/null || fail "merged summary differs from the unsharded run"
grep -qF '\"actual\": NaN' merged/results.jsonl || fail "no NaN actual among the honest lines"
before=$(archive_state)

# tamper NAME LINE EDIT: copies both shards to NAME.1 and NAME.2, applies the
# Python statement EDIT to results line LINE (of the predictions file) as the
# dict `r` (its observation document as the dict `o` when EDIT names it),
# rewrites SHA256SUMS as an attacker would, and runs the merge: exit 2, the
# archive unchanged, no --out. Leaves the shard file holding LINE in $where.
tamper() {
  local name=$1 line=$2 edit=$3
  rm -rf "$name.1" "$name.2"; cp -r s1 "$name.1"; cp -r s2 "$name.2"
  where=$(python3 - "$name" "$line" "$edit" <<'PY'
import hashlib, json, os, sys
name, line, edit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for d in (name + ".1", name + ".2"):
    path = os.path.join(d, "results.jsonl")
    lines = open(path, encoding="utf-8").read().splitlines()
    for n, text in enumerate(lines):
        r = json.loads(text)
        if r["line"] != line:
            continue
        o = json.loads(r["observation"])
        exec(edit)
        if "o[" in edit:
            r["observation"] = json.dumps(o, ensure_ascii=False)
        lines[n] = json.dumps(r, ensure_ascii=False, separators=(",", ":"))
        open(path, "w", encoding="utf-8").write("".join(l + "\n" for l in lines))
        h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
        names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
        open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
        print(f"{path}:{n + 1}")
PY
)
  [ -n "$where" ] || fail "$name: no results line $line"
  (cd "$name.1" && sha256sum -c --quiet SHA256SUMS) && (cd "$name.2" && sha256sum -c --quiet SHA256SUMS) || fail "$name: sums"
  expect_status 2 "$FAILMAP" grade merge "$name.1" "$name.2" --out "$name.out"
  [ ! -e "$name.out" ] || fail "$name: a refused merge wrote its folder"
  [ "$(archive_state)" = "$before" ] || fail "$name: the merge changed the archive"
}

# Line 4 raised NotImplementedError everywhere: unresolved, not resolved.
tamper verdict 4 'r["verdict"] = "resolved"'
expect_error_mentions "$where: field 'verdict': stored \"resolved\", recomputed \"unresolved\""
expect_error_mentions "this line was edited after grading"
tamper passed 4 'r["checks"][2]["passed"] = True'
expect_error_mentions "$where: field 'checks[2].passed': stored true, recomputed false"
tamper fail_to_pass 4 'r["fail_to_pass"] = {"success": r["fail_to_pass"]["failure"], "failure": []}'
expect_error_mentions "$where: field 'fail_to_pass.success': stored [\"short final batch\",\"single short\",\"oversized batch\",\"unit batch\"], recomputed []"
tamper pass_to_pass 4 'r["pass_to_pass"]["success"].append(r["pass_to_pass"]["failure"].pop())'
expect_error_mentions "$where: field 'pass_to_pass.success': stored [\"mixed remainder\"], recomputed []"
# Line 2 is the page's unsuccessful fix proposed again.
tamper same_as 2 'r["same_as"] = None'
expect_error_mentions "$where: field 'same_as': stored null, recomputed \"unsuccessful\""
tamper observation_sha256 2 'r["observation_sha256"] = hashlib.sha256(b"x").hexdigest()'
expect_error_mentions "$where: field 'observation_sha256': stored \"$(printf x | sha256sum | cut -c1-64)\", recomputed \""
# The expected values in the document are the archive's, not the line's: an
# edited one (digest recomputed to match) is refused.
tamper expected 4 'o["observations"][0]["expected"] = None; r["observation_sha256"] = hashlib.sha256(json.dumps(o, ensure_ascii=False).encode()).hexdigest()'
expect_error_mentions "$where: field 'observation': stored …\"nal batch\\\", \\\"actual\\\": null, \\\"expected\\\": null, \\\"passed\\\": false}"
expect_error_mentions "recomputed …\"nal batch\\\", \\\"actual\\\": null, \\\"expected\\\": 3, \\\"passed\\\": false}"
# The document's "passed" is failmap's comparison, not the line's.
tamper document_passed 4 'o["observations"][1]["passed"] = True'
expect_error_mentions "$where: field 'observation': stored"
# An actual value for a check that raised: the call returned nothing.
tamper raised_actual 4 'o["observations"][0]["actual"] = 3'
expect_error_mentions "$where: field 'observation': stored"
tamper mechanism 4 'r["mechanism"] = "off-by-one-window"'
expect_error_mentions "$where: field 'mechanism': stored \"off-by-one-window\", recomputed \"gradient-accumulation-weighting\""
# Held-out figures: the bindings are failmap's draw, resolved follows from failing.
tamper held_resolved 4 'r["held_out"]["resolved"] = True'
expect_error_mentions "$where: field 'held_out.resolved': stored true, recomputed false"
tamper held_bindings 4 'r["held_out"]["bindings"][0]["N"] += 1'
expect_error_mentions "$where: field 'held_out.bindings[0].N': stored"
tamper held_failing 4 'r["held_out"]["failing"][0]["check"] = "no such check"'
expect_error_mentions "$where: field 'held_out.failing[0].check': stored \"no such check\", recomputed \"all full batches\""
tamper held_order 4 'f = r["held_out"]["failing"]; f[0], f[1] = f[1], f[0]'
expect_error_mentions "$where: field 'held_out.failing[0].check': stored \"all full batches\", recomputed \"short final batch\""
tamper sandbox 4 'r["sandbox"] = "none"'
expect_error_mentions "$where: field 'sandbox': stored \"none\", recomputed \"bwrap\""
tamper unknown_member 4 'r["bonus"] = 1'
expect_error_mentions "$where: field 'bonus': stored 1, which failmap does not write"
tamper checks_count 4 'r["checks"].pop()'
expect_error_mentions "$where: field 'checks': holds 6 check(s); case FA-98921 has 7 in the archive"

# A case the archive does not hold, and a case changed since the grading.
expect_status 0 "$FAILMAP" --db other.db import "$SRC/cases/FA-98921.json" >/dev/null
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = c["title"] + " (edited)"
json.dump(c, open("edited.json", "w"), ensure_ascii=False)
PY
expect_status 0 "$FAILMAP" --db other.db import edited.json --replace
expect_status 2 "$FAILMAP" --db other.db grade merge s1 s2 --out changed
expect_error_mentions "field 'case_digest': stored \"$(sed -n 1p whole/results.jsonl | python3 -c 'import json,sys; print(json.load(sys.stdin)["case_digest"])')\", case FA-98921 in"
expect_error_mentions "the case changed since it was graded (or the line was edited); grade its predictions again against this archive"
expect_status 0 "$FAILMAP" --db empty.db import "$(ls "$SRC"/cases/*.json | grep -v FA-98921 | head -1)"
expect_status 2 "$FAILMAP" --db empty.db grade merge s1 s2 --out absent
expect_error_mentions "field 'case': no case FA-98921 in"
expect_error_mentions "name the archive the shards were graded with (--db)"
[ ! -e changed ] && [ ! -e absent ] || fail "a refused merge wrote its folder"

# A line without case_digest (an older failmap's) cannot be checked against its case.
tamper no_digest 4 'del r["case_digest"]'
expect_error_mentions "$where: field 'case_digest': absent (a line of an older failmap)"
echo "grade merge: every edited field refused"
