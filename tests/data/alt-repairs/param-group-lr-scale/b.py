def solve(base_lr, scales, factors):
    out = []
    for step in range(len(factors)):
        row = []
        for group in range(len(scales)):
            base = base_lr * scales[group]
            row.append(base * factors[step])
        out.append(row)
    return out
