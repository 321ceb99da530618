def solve(seed, draws_per_step, steps_done, count):
    start = steps_done * draws_per_step
    out = []
    for j in range(count):
        out.append((seed * 7919 + (start + j + 1) * 104729) % 1000003)
    return out
