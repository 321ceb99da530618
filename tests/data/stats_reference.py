#!/usr/bin/env python3
"""Independent computation of the interval rules of schema/GRADING.md
("Intervals"), for tests/unit/test_stats.cc: the unit bootstrap, the paired
comparison with its sign-flip permutation test, and pass@k. Written from the
document, not from src/grade/stats.cc. Run: python3 tests/data/stats_reference.py
(prints the values the unit test asserts, as Python's repr)."""

import hashlib
import math

MASK = (1 << 64) - 1


class Stream:
    def __init__(self, label, seed, scope, replicate):
        msg = label.encode() + b"\0" + str(seed).encode() + b"\0" + scope.encode() + b"\0" + str(replicate).encode()
        self.state = int.from_bytes(hashlib.sha256(msg).digest()[:8], "big")

    def next(self):  # splitmix64
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def bootstrap(units, scope, seed=0, replicates=2000):
    """units: list of units, each a list of case values (one statistic)."""
    m = len(units)
    sums = []
    for u in units:
        s = 0.0
        for v in u:
            s += v
        sums.append(s)
    reps = []
    for b in range(replicates):
        st = Stream("failmap-bootstrap-v1", seed, scope, b)
        total, count = 0.0, 0
        for _ in range(m):
            u = st.next() % m
            total += sums[u]
            count += len(units[u])
        reps.append(total / count)
    reps.sort()
    return reps[math.ceil(0.025 * replicates) - 1], reps[math.ceil(0.975 * replicates) - 1]


def paired(units, scope, seed=0):
    """units: list of units, each a list of (a, b) resolved rates."""
    d = []
    for u in units:
        s = 0.0
        for a, b in u:
            s += a - b
        d.append(s)
    total = 0.0
    for x in d:
        total += x
    n = sum(len(u) for u in units)
    diff = total / n
    interval = bootstrap([[a - b for a, b in u] for u in units], scope, seed) if len(units) >= 2 else None
    obs = abs(total)
    thr = obs - 1e-9 * (1.0 + obs)
    m = len(d)
    count = 0
    if m <= 16:
        for p in range(1 << m):
            t = 0.0
            for i in range(m):
                t += -d[i] if (p >> i) & 1 else d[i]
            if abs(t) >= thr:
                count += 1
        pval = count / (1 << m)
    else:
        draws = 20000
        for r in range(draws):
            st = Stream("failmap-permutation-v1", seed, scope, r)
            t = 0.0
            for i in range(m):
                t += -d[i] if st.next() & 1 else d[i]
            if abs(t) >= thr:
                count += 1
        pval = (1 + count) / (1 + draws)
    return diff, interval, pval


def pass_at_k(n, c, k):
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


# --- the scenarios of tests/unit/test_stats.cc -----------------------------

# Scenario 1: five units of 1-4 cases, values resolved (1.0) or not (0.0).
UNITS1 = [[1.0, 1.0, 0.0], [0.0], [1.0, 0.0, 0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
print("bootstrap1", bootstrap(UNITS1, "model:m"))
print("bootstrap1 seed7", bootstrap(UNITS1, "model:m", seed=7))

# Scenario 2: pass@k values (n = 3 samples per case) in 4 units.
NC = [[(3, 2), (3, 0)], [(3, 3)], [(3, 1), (3, 1), (3, 0)], [(3, 2)]]
for k in (1, 2, 3):
    units = [[pass_at_k(n, c, k) for n, c in u] for u in NC]
    print("bootstrap2 k=%d" % k, bootstrap(units, "model:x/mechanism:y"))

# Scenario 3: paired, 4 units (exact enumeration).
P3 = [[(1.0, 0.0), (1.0, 1.0)], [(0.5, 0.0)], [(1.0, 0.0), (0.0, 0.0), (1.0, 0.5)], [(1.0, 0.0)]]
print("paired3", paired(P3, "compare:A\0B"))

# Scenario 4: 18 units of one case, A better on 14, B on 1 (Monte Carlo).
P4 = [[(1.0, 0.0)]] * 14 + [[(0.0, 1.0)]] + [[(1.0, 1.0)]] * 3
print("paired4", paired(P4, "compare:A\0B"))

# Scenario 5: two models differing by noise only: 12 units of 2 cases; B's
# result is A's with a coin flip (fixed here) in 6 of the 24 cases, both
# directions equally.
A5 = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0]
FLIP = {2: 1, 5: 0, 9: 1, 13: 0, 17: 0, 20: 1}  # case index -> B's result
B5 = [FLIP.get(i, a) for i, a in enumerate(A5)]
P5 = [[(float(A5[2 * u]), float(B5[2 * u])), (float(A5[2 * u + 1]), float(B5[2 * u + 1]))] for u in range(12)]
print("paired5", paired(P5, "compare:A\0B"))
