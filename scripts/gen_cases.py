#!/usr/bin/env python3
"""Generate and check the case files of the compiled-in mechanisms.

Reads every src/mechanisms/<id>.cc (its prose, evaluation_group tags,
strategies' Python sources and fixture templates, as C++ string literals),
then either

  gen_cases.py check [--n 1,2,3,...]   checks the registry rules on the Python
                                       sources (tests/unit/test_mechanism_rules.cc):
                                       for every mechanism and N (default: every
                                       N from 1 to 1,000 or the declared
                                       parameter_maximum), the broken and the
                                       unsuccessful strategy each fail >= 2
                                       checks, the unsuccessful one passes a
                                       check the broken one fails and fails one
                                       the broken one passes or fails with
                                       another value, and the repair passes all;
  gen_cases.py case ID --variant V --n N [--id FA-NNNNN [--replace]]
                                       writes one case file of mechanism ID
                                       (refused unless the rules hold at N);
  gen_cases.py write [--only ID ...]   writes cases/FA-NNNNN.json for every
                                       mechanism in VARIANTS (N per variant),
                                       with fixtures evaluated by Python from
                                       the templates (the same values failmap's
                                       expression evaluator computes);
  gen_cases.py write --only ID --n 1,4 --ids 30000-64999
                                       the same for any mechanism, one variant
                                       per N, ids drawn from that range.

Python standard library only; run from the repository root.
"""
import argparse
import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MECHANISMS = ROOT / "src" / "mechanisms"
CASES = ROOT / "cases"

# Parameter N of variants 1, 2, 3 of each mechanism this script writes cases for.
VARIANT_N = (1, 3, 7)
VARIANTS = [
    "token-weighted-accumulation-loss",
    "partial-accumulation-flush",
    "padded-token-loss-mean",
    "distributed-sampler-padding",
    "warmup-off-by-one",
    "linear-decay-final-step",
    "global-norm-clipping",
    "ema-bias-correction",
    "steps-per-epoch-with-accumulation",
    "resume-batch-skip",
]
RESERVED_IDS = {"FA-98921"}  # the published seed case

STRING = r'"(?:[^"\\\n]|\\.)*"'
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def unquote(literal):
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: ESCAPES[m.group(1)], body)


def strings_after(text, pos):
    """The adjacent string literals starting at text[pos:], concatenated; and the end position."""
    out = []
    pattern = re.compile(r"\s*(" + STRING + ")")
    while True:
        m = pattern.match(text, pos)
        if not m:
            return "".join(out), pos
        out.append(unquote(m.group(1)))
        pos = m.end()


def field(text, name):
    m = re.search(r"\." + name + r"\s*=\s*", text)
    if not m:
        raise ValueError(f"no .{name}")
    value, _ = strings_after(text, m.end())
    return value


def parse_mechanism(path):
    text = path.read_text(encoding="utf-8")
    mech = {"id": field(text, "id"), "title": field(text, "title")}
    if mech["id"] != path.stem:
        raise ValueError(f"{path}: id {mech['id']!r} differs from the file name")
    tags = re.search(r"\.evaluation_group\s*=\s*\{([^}]*)\}", text).group(1)
    mech["evaluation_group"] = [unquote(s) for s in re.findall(STRING, tags)]
    prose = text[text.index(".prose"):text.index(".strategies")]
    mech["prose"] = {
        k: field(prose, k)
        for k in ("case_title", "summary", "root_cause", "failure", "unsuccessful_approach", "contract",
                  "why_it_matters", "scope")
    }
    maximum = re.search(r"\.parameter_maximum\s*=\s*\{([^}]*)\}", text)
    mech["maximum"] = int(maximum.group(1).replace("'", "")) if maximum and maximum.group(1).strip() else None
    mech["python"] = {}
    for m in re.finditer(r"\{StrategyKind::(\w+),\s*\w+,|FAILMAP_REPAIRED\(\w+,", text):
        source, _ = strings_after(text, m.end())
        mech["python"][(m.group(1) or "repaired").lower()] = source
    fixtures_text = text[text.index(".fixtures"):]
    mech["fixtures"] = []
    for m in re.finditer(r"\{(\s*" + STRING + r"\s*,\s*" + STRING + r"\s*,\s*" + STRING + r"\s*)\}", fixtures_text):
        label, args, expected = [unquote(s) for s in re.findall(STRING, m.group(1))]
        mech["fixtures"].append({"label": label, "args": args, "expected": expected})
    if len(mech["fixtures"]) != 7 or len(mech["python"]) != 3:
        raise ValueError(f"{path}: expected 7 fixtures and 3 strategies")
    return mech


def load_mechanisms():
    return {p.stem: parse_mechanism(p) for p in sorted(MECHANISMS.glob("*.cc"))}


def instantiate(mech, n):
    out = []
    for f in mech["fixtures"]:
        args = eval("(" + f["args"] + ",)", {"__builtins__": {}}, {"N": n})
        expected = eval(f["expected"], {"__builtins__": {}}, {"N": n})
        out.append({"label": f["label"], "args": list(args), "expected": expected})
    return out


def run_python(mech, strategy, fixtures):
    """Per fixture: (passed?, actual). Runs the strategy's source as the reference script would."""
    namespace = {}
    exec(mech["python"][strategy], namespace)
    out = []
    for f in fixtures:
        actual = namespace["solve"](*f["args"])
        out.append((actual == f["expected"], repr(actual)))
    return out


def rule_problems(mech, n):
    fixtures = instantiate(mech, n)
    b_runs = run_python(mech, "broken", fixtures)
    u_runs = run_python(mech, "unsuccessful", fixtures)
    b = [ok for ok, _ in b_runs]
    u = [ok for ok, _ in u_runs]
    r = [ok for ok, _ in run_python(mech, "repaired", fixtures)]
    problems = []
    if b.count(False) < 2:
        problems.append(f"broken fails {b.count(False)} checks")
    if u.count(False) < 2:
        problems.append(f"unsuccessful fails {u.count(False)} checks")
    if not any(pu and not pb for pu, pb in zip(u, b)):
        problems.append("unsuccessful passes no check that broken fails")
    if not any(not ou and (ob or ab != au) for (ob, ab), (ou, au) in zip(b_runs, u_runs)):
        problems.append("unsuccessful fails no check that broken passes or fails with another value")
    if not all(r):
        problems.append("repaired fails " + ", ".join(f["label"] for f, ok in zip(fixtures, r) if not ok))
    return problems


def case_id(mech_id, variant, ids=(10000, 99999)):
    """A stable five-digit id in [ids[0], ids[1]] derived from the mechanism id and variant."""
    seed = f"{mech_id}#{variant}"
    taken = RESERVED_IDS | {p.stem for p in CASES.glob("FA-*.json")}
    while True:
        number = int(hashlib.sha256(seed.encode()).hexdigest(), 16) % (ids[1] - ids[0] + 1) + ids[0]
        cid = f"FA-{number:05d}"
        if cid not in taken or ids == (10000, 99999):
            return cid
        seed += "'"


def case_json(mech, variant, n, ids=(10000, 99999), cid=None):
    p = mech["prose"]
    cid = cid or case_id(mech["id"], variant, ids)
    fixtures = instantiate(mech, n)
    fields = [
        ("format", "failmap-case"),
        ("format_version", 1),
        ("id", cid),
        ("mechanism", mech["id"]),
        ("variant", variant),
        ("title", p["case_title"]),
        ("tier", "open"),
        ("summary", p["summary"]),
        ("root_cause", p["root_cause"]),
        ("failure", p["failure"]),
        ("unsuccessful_approach", p["unsuccessful_approach"]),
        ("contract", p["contract"]),
        ("why_it_matters", p["why_it_matters"]),
        ("scope", p["scope"]),
        ("params", {"N": n}),
    ]
    dump = lambda v: json.dumps(v, ensure_ascii=False)
    lines = [f"  {dump(k)}: {dump(v)}" for k, v in fields]
    fixture_lines = [
        f'    {{"label": {dump(f["label"])}, "args": {dump(f["args"])}, "expected": {dump(f["expected"])}}}'
        for f in fixtures
    ]
    lines.append('  "fixtures": [\n' + ",\n".join(fixture_lines) + "\n  ]")
    lines.append(f'  "evaluation_group": {dump(sorted(set(mech["evaluation_group"])))}')
    lines.append('  "recorded": {"runtime": "", "at": ""}')
    return cid, "{\n" + ",\n".join(lines) + "\n}\n"


def free_case_id(mech_id, variant, low=65000, high=99999):
    """A stable id in FA-low..FA-high for (mechanism, variant) that no file in cases/ has yet."""
    seed = f"{mech_id}#{variant}"
    while True:
        number = int(hashlib.sha256(seed.encode()).hexdigest(), 16) % (high - low + 1) + low
        cid = f"FA-{number:05d}"
        if cid not in RESERVED_IDS and not (CASES / f"{cid}.json").exists():
            return cid
        seed += "'"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check")
    check.add_argument("--n", default=None)
    check.add_argument("--only", nargs="*", default=None)
    write = sub.add_parser("write")
    write.add_argument("--only", nargs="*", default=None)
    write.add_argument("--n", default=None, help="N of variants 1, 2, ... (with --only)")
    write.add_argument("--ids", default=None, help="id range LOW-HIGH (with --only)")
    case = sub.add_parser("case", help="write one case file of one mechanism")
    case.add_argument("mechanism")
    case.add_argument("--variant", type=int, required=True)
    case.add_argument("--n", type=int, required=True)
    case.add_argument("--id", default=None, help="FA-NNNNN (default: a free id in FA-65000..FA-99999)")
    case.add_argument("--replace", action="store_true", help="overwrite the case file of --id if it exists")
    opts = parser.parse_args()
    mechanisms = load_mechanisms()
    if opts.command == "case":
        if opts.mechanism not in mechanisms:
            sys.exit(f"gen_cases.py: no mechanism {opts.mechanism!r} in {MECHANISMS}")
        mech = mechanisms[opts.mechanism]
        problems = rule_problems(mech, opts.n)
        if problems:
            sys.exit(f"gen_cases.py: {opts.mechanism} N={opts.n}: " + "; ".join(problems))
        cid = opts.id or free_case_id(opts.mechanism, opts.variant)
        if not re.fullmatch(r"FA-\d{5}", cid):
            sys.exit(f"gen_cases.py: case id {cid!r} is not FA-NNNNN")
        path = CASES / f"{cid}.json"
        if path.exists() and not opts.replace:
            sys.exit(f"gen_cases.py: {path} exists (--replace overwrites it)")
        cid, text = case_json(mech, opts.variant, opts.n, cid=cid)
        path.write_text(text, encoding="utf-8")
        print(f"cases/{cid}.json  {opts.mechanism} variant {opts.variant} N={opts.n}")
        return 0
    if opts.command == "check":
        bad = 0
        for mid, mech in mechanisms.items():
            if opts.only and mid not in opts.only:
                continue
            ns = [int(x) for x in opts.n.split(",")] if opts.n else range(1, min(mech["maximum"] or 1000, 1000) + 1)
            ns = [n for n in ns if mech["maximum"] is None or n <= mech["maximum"]]  # bindings of the domain only
            for n in ns:
                for problem in rule_problems(mech, n):
                    print(f"{mid} N={n}: {problem}")
                    bad += 1
        print(f"{len(mechanisms)} mechanisms checked, {bad} problems")
        return 1 if bad else 0
    seen = {}
    if opts.n or opts.ids:
        if not opts.only or not opts.n or not opts.ids:
            sys.exit("--n and --ids go together, with --only")
        ids = tuple(int(x) for x in opts.ids.split("-"))
        for mid in opts.only:
            for variant, n in enumerate([int(x) for x in opts.n.split(",")], start=1):
                cid, text = case_json(mechanisms[mid], variant, n, ids)
                (CASES / f"{cid}.json").write_text(text, encoding="utf-8")
                print(f"cases/{cid}.json  {mid} variant {variant} N={n}")
        return 0
    for mid in VARIANTS:
        if opts.only and mid not in opts.only:
            continue
        for variant, n in enumerate(VARIANT_N, start=1):
            cid, text = case_json(mechanisms[mid], variant, n)
            if cid in seen:
                sys.exit(f"id collision: {cid} for {mid} and {seen[cid]}")
            seen[cid] = mid
            (CASES / f"{cid}.json").write_text(text, encoding="utf-8")
            print(f"cases/{cid}.json  {mid} variant {variant} N={n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
