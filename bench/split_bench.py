"""Helpers of bench/split_bench.sh (run with Debian's /usr/bin/python3, which has python3-sklearn).

  gen OUT                   the listing: 1,000,000 items in 20,000 groups, Zipf-like sizes (weight 1/rank^1.1)
  sklearn LISTING OUT SEED  scikit-learn end to end: read the listing, GroupShuffleSplit(test_size=0.2), write
                            assignments (one JSON line per item); prints the wall seconds
  stats LISTING [SEED...]   GroupShuffleSplit test share per seed and GroupKFold(5) spread, arrays in memory
  audit LISTING ASSIGNMENTS leakage of an assignment file: groups found in more than one split
"""
import json
import random
import sys
import time

ITEMS = 1_000_000
GROUPS = 20_000


def gen(out):
    weights = [1.0 / (r ** 1.1) for r in range(1, GROUPS + 1)]
    total = sum(weights)
    exact = [ITEMS * w / total for w in weights]
    sizes = [max(1, int(x)) for x in exact]
    # Largest remainders get the items left over, so the sizes sum to ITEMS exactly.
    short = ITEMS - sum(sizes)
    for r in sorted(range(GROUPS), key=lambda r: exact[r] - int(exact[r]), reverse=True)[:short]:
        sizes[r] += 1
    groups = [g for g, n in enumerate(sizes) for _ in range(n)]
    random.Random(20240601).shuffle(groups)
    with open(out, "w") as f:
        for i, g in enumerate(groups):
            f.write('{"id":"i%07d","group":"g%05d"}\n' % (i, g))
    print("largest group %d items (%.1f%%), smallest %d" % (sizes[0], 100.0 * sizes[0] / ITEMS, min(sizes)))


def read_listing(path):
    ids, groups = [], []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            ids.append(o["id"])
            groups.append(o["group"])
    return ids, groups


def sklearn_end_to_end(listing, out, seed):
    import numpy as np
    from sklearn.model_selection import GroupShuffleSplit

    t0 = time.perf_counter()
    ids, groups = read_listing(listing)
    g = np.array(groups)
    train, test = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=seed).split(g, groups=g))
    split = np.empty(len(ids), dtype=object)
    split[train] = "train"
    split[test] = "test"
    with open(out, "w") as f:
        for i, s in zip(ids, split):
            f.write('{"id":%s,"split":"%s"}\n' % (json.dumps(i), s))
    print("%.3f" % (time.perf_counter() - t0))


def stats(listing, seeds):
    import numpy as np
    from sklearn.model_selection import GroupKFold, GroupShuffleSplit

    _, groups = read_listing(listing)
    g = np.array(groups)
    shares = []
    t_split = 0.0
    for seed in seeds:
        t0 = time.perf_counter()
        train, test = next(GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=seed).split(g, groups=g))
        t_split += time.perf_counter() - t0
        leak = len(set(g[train]) & set(g[test]))
        shares.append((seed, len(test) / len(g), leak))
    sizes = [len(test) for _, test in GroupKFold(n_splits=5).split(g, groups=g)]
    print(json.dumps({"gss": shares, "gss_split_seconds": t_split / len(seeds), "gkf_sizes": sizes}))


def audit(listing, assignments):
    _, groups = read_listing(listing)
    where = {}
    with open(assignments) as f:
        for n, line in enumerate(f):
            where.setdefault(groups[n], set()).add(json.loads(line)["split"])
    print(sum(1 for s in where.values() if len(s) > 1))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "sklearn":
        sklearn_end_to_end(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "stats":
        stats(sys.argv[2], [int(s) for s in sys.argv[3:]])
    elif cmd == "audit":
        audit(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
