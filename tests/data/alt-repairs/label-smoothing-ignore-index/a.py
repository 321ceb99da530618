def solve(nll, smooth, targets, eps):
    kept = [(n, s) for n, s, t in zip(nll, smooth, targets) if t != -100]
    nll_sum = 0.0
    smooth_sum = 0.0
    for n, s in kept:
        nll_sum += n
        smooth_sum += s
    return ((1.0 - eps) * nll_sum + eps * smooth_sum) / len(kept)
