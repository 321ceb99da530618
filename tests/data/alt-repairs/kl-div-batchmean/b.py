def solve(terms):
    from functools import reduce
    dists = [dist for seq in terms for dist in seq]
    flat = [x for dist in dists for x in dist]
    return reduce(lambda a, b: a + b, flat, 0.0) / len(dists)
