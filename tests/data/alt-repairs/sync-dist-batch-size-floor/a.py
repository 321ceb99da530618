def solve(values, sizes):
    value = 0.0
    for v in values[:len(sizes)]:
        value += v
    return value / sum(sizes[:len(values)])
