def solve(confidences, correct, n_bins):
    edges = [k / n_bins for k in range(n_bins + 1)]
    total = 0.0
    for b in range(n_bins):
        lo, hi = edges[b], edges[b + 1]
        s = 0.0
        h = 0
        for c, ok in zip(confidences, correct):
            inside = lo <= c < hi or (b == n_bins - 1 and c == hi)
            if inside:
                s += c
                h += ok
        total += abs(s - h)
    return total / len(confidences)
