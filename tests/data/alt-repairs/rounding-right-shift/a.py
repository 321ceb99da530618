def solve(values, shift):
    d = 2 ** shift
    out = []
    for v in values:
        q, r = divmod(abs(v), d)
        if 2 * r >= d and d > 1:
            q += 1
        out.append(q if v >= 0 else -q)
    return out
