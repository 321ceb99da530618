def solve(warmup, total, steps_per_epoch, step, count):
    out = []
    for t in range(step, step + count):
        if t < warmup:
            out.append(t / max(1, warmup))
        else:
            out.append(max(0.0, (total - t) / max(1, total - warmup)))
    return out
