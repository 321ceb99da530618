def solve(values, zero_point):
    out = []
    for v in values:
        s = v + zero_point
        if s > 127:
            s = 127
        elif s < -128:
            s = -128
        out.append(s)
    return out
