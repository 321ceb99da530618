def solve(flags, batch_size):
    count = 0
    hits = 0
    for start in range(0, len(flags), batch_size):
        batch = flags[start:start + batch_size]
        count += len(batch)
        hits += sum(batch)
    return [count, hits / count]
