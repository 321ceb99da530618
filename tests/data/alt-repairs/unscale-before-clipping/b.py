def solve(grads, scale, max_norm):
    from math import sqrt
    true_grads = []
    for g in grads:
        true_grads.append(g / scale)
    sq = 0.0
    for g in true_grads:
        sq = sq + g * g
    norm = sqrt(sq)
    coef = 1.0
    if norm > 0 and max_norm / norm < 1.0:
        coef = max_norm / norm
    return [g * coef for g in true_grads]
