def solve(warmup, total, steps_per_epoch, step, count):
    ramp = warmup if warmup > 1 else 1
    tail = total - warmup if total - warmup > 1 else 1
    f = lambda t: t / ramp if t < warmup else max(0.0, (total - t) / tail)
    return [f(step + k) for k in range(count)]
