def solve(beta, xs):
    averages = []
    m = 0.0
    for x in xs:
        m = beta * m + (1.0 - beta) * x
        averages.append(m)
    return [a / (1.0 - beta ** (t + 1)) for t, a in enumerate(averages)]
