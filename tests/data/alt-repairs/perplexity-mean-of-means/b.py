def solve(nll):
    flat = [x for seq in nll for x in seq]
    total = 0.0
    for x in flat:
        total = total + x
    return 2.0 ** (total / len(flat))
