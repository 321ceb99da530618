def solve(warmup, total, step):
    phase = 0 if step < warmup else 1
    if phase == 0:
        return [phase, step, warmup]
    return [phase, min(step, total) - warmup, total - warmup]
