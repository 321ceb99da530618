def solve(x, mask, p, training):
    if training:
        return [(v * m) / (1.0 - p) for v, m in zip(x, mask)]
    return [v for v in x]
