def solve(flags, batch_size):
    n = 0
    hits = 0
    for f in flags:
        n += 1
        hits += f
    return [n, hits / n]
