def solve(t0, t_mult, epoch):
    start = 0
    length = t0
    while start + length <= epoch:
        start += length
        length *= t_mult
    return [epoch - start, length]
