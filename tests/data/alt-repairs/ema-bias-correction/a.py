def solve(beta, xs):
    m = 0.0
    power = 1.0
    out = []
    for x in xs:
        m = m + (1.0 - beta) * (x - m)
        power *= beta
        out.append(m / (1.0 - power))
    return out
