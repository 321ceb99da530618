# Alternative correct repairs: for every compiled-in mechanism,
# tests/data/alt-repairs/<mechanism>/a.py and b.py are two further correct
# fixes, written from a case's task alone (contract, prose, broken source,
# fixtures) and differently from the reference repair. Graded as predictions
# for one shipped case of the mechanism with --held-out 20, every one is
# "resolved" at the case's binding and resolves at the 20 held-out bindings
# too: the checks accept any correct fix, not only the reference's operation
# order (CONTRIBUTING.md section 3, "Alternative repairs resolve").
ALT="$SRC/tests/data/alt-repairs"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
expect_status 0 "$FAILMAP" mechanisms --json
echo "$out" > mechanisms.jsonl
expect_status 0 "$FAILMAP" list --json
echo "$out" > cases.jsonl

python3 - "$ALT" "$SRC" mechanisms.jsonl cases.jsonl predictions.jsonl <<'PY' || fail "alt-repair files"
import json, os, sys
alt, src, mech_file, case_file, out = sys.argv[1:]
sys.path.insert(0, os.path.join(src, "scripts"))
import gen_cases  # the mechanisms' Python sources, read from src/mechanisms/
sources = gen_cases.load_mechanisms()
mechanisms = [json.loads(l)["id"] for l in open(mech_file) if l.strip()]
assert len(mechanisms) >= 40, len(mechanisms)
cases = {}
for line in open(case_file):
    if line.strip():
        c = json.loads(line)
        cases.setdefault(c["mechanism"], []).append(c["id"])
folders = sorted(os.listdir(alt))
assert folders == sorted(mechanisms), ("alt-repair folders and registry differ",
                                       sorted(set(mechanisms) - set(folders)), sorted(set(folders) - set(mechanisms)))
strip = lambda text: [l.strip() for l in text.splitlines() if l.strip()]
with open(out, "w") as f:
    for m in sorted(mechanisms):
        assert cases.get(m), f"{m}: no shipped case"
        case = sorted(cases[m])[0]
        texts = {}
        for name in ("a", "b"):
            path = os.path.join(alt, m, name + ".py")
            assert os.path.isfile(path), f"missing {path}"
            texts[name] = open(path, encoding="utf-8").read()
            assert "def solve(" in texts[name], path
            assert strip(texts[name]) != strip(sources[m]["python"]["repaired"]), f"{path} is the reference repair"
            f.write(json.dumps({"case": case, "model": "alt-" + name, "sample": 0, "source": texts[name]}) + "\n")
        assert strip(texts["a"]) != strip(texts["b"]), f"{m}: a.py and b.py are the same repair"
PY

expect_status 0 "$FAILMAP" grade predictions.jsonl --out graded --held-out 20 --no-record
python3 - graded/results.jsonl predictions.jsonl <<'PY' || fail "alternative repairs do not all resolve"
import json, sys
results = [json.loads(l) for l in open(sys.argv[1])]
lines = sum(1 for l in open(sys.argv[2]) if l.strip())
assert len(results) == lines, (len(results), lines)
bad = []
for r in results:
    name = f'{r["mechanism"]}/{r["model"][4:]}.py ({r["case"]})'
    if r["verdict"] != "resolved":
        failed = [c["check"] for c in r.get("checks", []) if not c["passed"]]
        bad.append(f'{name}: {r["verdict"]} {failed} {r.get("error")}')
    elif not r["held_out"]["resolved"]:
        bad.append(f'{name}: held-out fails {r["held_out"]["failing"][:3]}')
    else:
        # 20 bindings, or every other binding of a smaller domain (N from 1 to its maximum).
        ns = sorted(b["N"] for b in r["held_out"]["bindings"])
        whole = len(set(ns)) == len(ns) and len(ns) + 1 == max(ns) and 1 <= min(ns) <= 2
        assert len(ns) == 20 or (len(ns) < 20 and whole), r["held_out"]
for b in bad:
    print(b, file=sys.stderr)
assert not bad, f"{len(bad)} of {len(results)} alternative repairs do not resolve"
PY
