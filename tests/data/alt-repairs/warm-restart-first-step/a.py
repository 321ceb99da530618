def solve(t0, t_mult, steps):
    starts = []
    start = 0
    length = t0
    while start < steps:
        starts.append(start)
        start += length
        length *= t_mult
    return starts
