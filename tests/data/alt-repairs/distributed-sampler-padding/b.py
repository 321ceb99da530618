def solve(flags, world_size):
    hits = 0
    for f in flags:
        if f:
            hits += 1
    return hits / len(flags)
