def solve(sums, counts):
    from functools import reduce
    pairs = list(zip(sums, counts))
    loss = reduce(lambda acc, p: acc + p[0], pairs, 0.0)
    samples = reduce(lambda acc, p: acc + p[1], pairs, 0)
    return loss / samples
