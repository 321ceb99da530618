def solve(t0, t_mult, epoch):
    if t_mult == 1:
        return [epoch % t0, t0]
    cycles = 0
    while t0 * (t_mult ** (cycles + 1) - 1) // (t_mult - 1) <= epoch:
        cycles += 1
    begun = t0 * (t_mult ** cycles - 1) // (t_mult - 1)
    return [epoch - begun, t0 * t_mult ** cycles]
