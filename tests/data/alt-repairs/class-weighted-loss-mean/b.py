def solve(losses, targets, weight):
    from functools import reduce
    pairs = list(zip(losses, targets))
    num = reduce(lambda acc, lt: acc + weight[lt[1]] * lt[0], pairs, 0.0)
    den = reduce(lambda acc, lt: acc + weight[lt[1]], pairs, 0.0)
    return num / den
