def solve(correct, total):
    hits = 0
    seen = 0
    for rank_correct, rank_total in zip(correct, total):
        for c, t in zip(rank_correct, rank_total):
            hits = hits + c
            seen = seen + t
    return hits / seen
