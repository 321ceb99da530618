def solve(terms):
    total = 0.0
    for seq in terms:
        for dist in seq:
            for x in dist:
                total += x
    return total / sum(len(seq) for seq in terms)
