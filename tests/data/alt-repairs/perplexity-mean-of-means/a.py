def solve(nll):
    import math
    total = 0.0
    tokens = 0
    for seq in nll:
        for x in seq:
            total += x
            tokens += 1
    return math.pow(2, total / tokens)
