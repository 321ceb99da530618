def solve(sums, counts):
    total = 0.0
    for s in sums[:len(counts)]:
        total += s
    return total / sum(counts[:len(sums)])
