def solve(base, floor, total):
    out = []
    t = 0
    while t < total:
        if total - 1 == 0:
            out.append(floor)
        else:
            out.append(floor + (base - floor) * (total - 1 - t) / (total - 1))
        t += 1
    return out
