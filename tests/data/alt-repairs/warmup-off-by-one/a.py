def solve(base, warmup, steps):
    out = []
    for s in range(steps):
        frac = (s + 1) / warmup
        if frac > 1:
            frac = 1.0
        out.append(base * frac)
    return out
