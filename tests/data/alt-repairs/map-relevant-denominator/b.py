def solve(relevance, total_relevant):
    aps = []
    for flags, r in zip(relevance, total_relevant):
        ranks = [k + 1 for k, f in enumerate(flags) if f == 1]
        s = 0.0
        for hit_number, rank in enumerate(ranks, start=1):
            s += hit_number / rank
        aps.append(s / r if r > 0 else 0.0)
    mean = 0.0
    for a in aps:
        mean += a
    return mean / len(relevance)
