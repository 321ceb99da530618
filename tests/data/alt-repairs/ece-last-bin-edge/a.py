import math
def solve(confidences, correct, n_bins):
    bins = {}
    for c, ok in zip(confidences, correct):
        b = math.floor(c * n_bins)
        if b >= n_bins:
            b = n_bins - 1
        s, h = bins.get(b, (0.0, 0))
        bins[b] = (s + c, h + ok)
    gap = 0.0
    for b in sorted(bins):
        s, h = bins[b]
        gap += abs(h - s)
    return gap / len(confidences)
