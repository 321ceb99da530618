def solve(lengths, pad):
    out = []
    for segment in list(lengths) + [pad]:
        out.extend(range(segment))
    return out
