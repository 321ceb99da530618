def solve(t0, t_mult, steps):
    out = []
    cycle_end = t0
    cycle_len = t0
    for step in range(steps):
        if step == 0 or step == cycle_end:
            out.append(step)
            if step == cycle_end:
                cycle_len = cycle_len * t_mult
                cycle_end = cycle_end + cycle_len
    return out
