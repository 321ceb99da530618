def solve(base, warmup, steps):
    return [base if s + 1 >= warmup else base * ((s + 1) / warmup) for s in range(steps)]
