#!/usr/bin/env python3
"""Generates cases of the seed mechanism (gradient-accumulation-weighting) at
N = FIRST..LAST, ids GEN-NNNNNN, from cases/FA-98921.json as the template.

  gen_seed_cases.py files DIR FIRST LAST   one case file per N in DIR (for import)

The fixture templates below mirror
src/mechanisms/gradient-accumulation-weighting.cc; Python evaluates them, so import's own check (fixtures equal the
templates at the binding) cross-checks this script. Tests use it to
feed `failmap import` many independent case files; archives for benches come
from `failmap instantiate`, which stores what import stores (repair salts,
digests)."""
import json
import os
import sys

TEMPLATES = [
    ("short final batch", "[N,N,1],2*N", "2*N+1"),
    ("all full batches", "[N,N],N", "2*N"),
    ("single short", "[1],N+1", "1"),
    ("empty", "[],N", "0"),
    ("oversized batch", "[3*N],N", "3*N"),
    ("mixed remainder", "[2*N,N-1],N+1", "3*N-1"),
    ("unit batch", "[1,1,1],2", "3"),
]
HERE = os.path.dirname(os.path.abspath(__file__))


def fixtures(n):
    env = {"N": n}
    return [(label, list(eval("(" + args + ",)", {}, env)), eval(expected, {}, env))
            for label, args, expected in TEMPLATES]


def case_id(n):
    return "GEN-%06d" % n


def main():
    mode, target, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    template = json.load(open(os.path.join(HERE, "..", "cases", "FA-98921.json")))
    template.pop("published", None)
    if mode == "files":
        os.makedirs(target, exist_ok=True)
        for n in range(first, last + 1):
            c = dict(template, id=case_id(n), params={"N": n},
                     fixtures=[{"label": l, "args": a, "expected": e} for l, a, e in fixtures(n)])
            with open(os.path.join(target, case_id(n) + ".json"), "w") as f:
                json.dump(c, f, indent=1)
        return
    sys.exit("usage: gen_seed_cases.py files DIR FIRST LAST")


main()
