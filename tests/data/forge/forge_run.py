"""Forges one run of a failmap JSONL bundle and re-hashes everything a forger can.

usage: forge_run.py BUNDLE_DIR EDIT [STRATEGY]

EDIT is one of the forgeries listed below (each changes a run's observation
the way a forger who knows the public digest scheme can). The first run of
STRATEGY (default: broken) whose observation the edit changes is rewritten;
then its "digest", its case record's "case_digest" (schema/DIGESTS.md, the
bundle case digest), the manifest's "sha256" and SHA256SUMS are recomputed,
as anyone can: the scheme is public and unkeyed. Prints "LINE CASE FIELD" of
the edited run (1-based line of runs.jsonl; FIELD: the observation field the
edit changes first). EDIT "none" re-hashes without editing (the bundle must
stay byte-identical: a check of this script itself).
"""
import hashlib, json, os, sys

d, edit = sys.argv[1], sys.argv[2]
strategy = sys.argv[3] if len(sys.argv) > 3 else "broken"
dumps = lambda v: json.dumps(v, ensure_ascii=False)


def spell17(x):
    return "%.17g" % x


def edits(doc, text):
    """(new observation text, first changed field) or None when EDIT does not apply."""
    obs = doc["observations"]
    if edit == "none":
        return text, None
    if edit == "spell17":  # 0.60000000000000009 for 0.6000000000000001: the same double
        for o in obs:
            a = o["actual"]
            t = spell17(a) if type(a) is float else ""
            if t and t != repr(a) and ("." in t or "e" in t) and float(t) == a:
                key = dumps(o["check"])
                at = text.index('"check": ' + key)
                head, tail = text[:at], text[at:]
                return head + tail.replace('"actual": ' + repr(a), '"actual": ' + spell17(a), 1), "observation"
        return None
    if edit == "reorder":  # the same members in another order
        new = [{"actual": o["actual"], "check": o["check"], "expected": o["expected"], "passed": o["passed"]} for o in obs]
        return dumps({"passed": doc["passed"], "observations": new}), "observation"
    if edit == "compact":
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")), "observation"
    if edit == "int_for_float":  # 1.0 written as 1 (Python: still == 1.0)
        for i, o in enumerate(obs):
            if type(o["actual"]) is float and o["actual"].is_integer():
                o["actual"] = int(o["actual"])
                return dumps(doc), f"observation.observations[{i}].actual"
        return None
    if edit == "negzero":  # 0 or 0.0 written as -0.0 (Python: still == 0)
        for i, o in enumerate(obs):
            if type(o["actual"]) in (int, float) and o["actual"] == 0 and type(o["actual"]) is not bool:
                o["actual"] = -0.0
                return dumps(doc), f"observation.observations[{i}].actual"
        return None
    if edit == "other_value":  # a failing check made to pass, outcomes made consistent
        for i, o in enumerate(obs):
            if not o["passed"]:
                o["actual"], o["passed"] = o["expected"], True
                doc["passed"] = all(x["passed"] for x in obs)
                return dumps(doc), f"observation.observations[{i}].actual"
        return None
    if edit == "other_failing":  # a passing check made to fail (for a repaired run)
        for i, o in enumerate(obs):
            if o["passed"] and type(o["actual"]) is int and type(o["actual"]) is not bool:
                o["actual"], o["passed"] = o["actual"] + 1, False
                doc["passed"] = False
                return dumps(doc), f"observation.observations[{i}].actual"
        return None
    if edit == "newline":  # a trailing newline inside the document
        return text + "\n", "observation"
    if edit == "label":
        obs[0]["check"] = obs[0]["check"] + " (renamed)"
        return dumps(doc), "observation.observations[0].check"
    raise SystemExit(f"unknown edit {edit}")


runs_path = os.path.join(d, "runs.jsonl")
runs = [json.loads(l) for l in open(runs_path, encoding="utf-8")]
done = None
for n, r in enumerate(runs, 1):
    if r["strategy"] != strategy or done:
        continue
    got = edits(json.loads(r["observation"]), r["observation"])
    if got is None:
        continue
    text, field = got
    if text == r["observation"] and edit != "none":
        continue
    r["observation"] = text
    r["digest"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    passed = json.loads(text)["passed"]
    r["exit_status"] = 0 if passed else 1
    done = (n, r["case"], field)
if done is None:
    raise SystemExit(f"no {strategy} run of this bundle to apply '{edit}' to")

def compact(rec):
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":"))

open(runs_path, "w", encoding="utf-8").write("".join(compact(r) + "\n" for r in runs))

# The bundle case digest of the edited run's case, over its record and the bundle's runs of it.
cases_path = os.path.join(d, "cases.jsonl")
cases = [json.loads(l) for l in open(cases_path, encoding="utf-8")]
for c in cases:
    if c["id"] != done[1]:
        continue
    # The digest names the case's access tier "tier", as a case file does (a bundle record of
    # format_version 3 says "case_tier", schema/BUNDLE.md "Tier names").
    record = {("tier" if k == "case_tier" else k): v for k, v in c.items()
              if k not in ("record", "format", "format_version", "published", "case_digest", "repair_salt", "repair_commitment")}
    record["params"] = {k: dumps(v) for k, v in c["params"].items()}
    record["fixtures"] = [{"label": f["label"], "args": dumps(f["args"]), "expected": dumps(f["expected"])} for f in c["fixtures"]]
    mine = {r["strategy"]: {"exit_status": r["exit_status"], "observation": r["digest"]} for r in runs if r["case"] == c["id"]}
    doc = {"scheme": "failmap-case-digest", "version": 1, "case": record, "runs": mine}
    c["case_digest"] = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")).hexdigest()
open(cases_path, "w", encoding="utf-8").write("".join(compact(c) + "\n" for c in cases))

h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
m = json.load(open(os.path.join(d, "manifest.json"), encoding="utf-8"))
m["sha256"] = {f: h(f) for f in m["files"]}
open(os.path.join(d, "manifest.json"), "w", encoding="utf-8").write(compact(m) + "\n")
names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
print(done[0], done[1], done[2] or "-")
