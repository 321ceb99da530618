def solve(x, mask, p, training):
    if training == 0:
        return list(x)
    keep = 1 - p
    out = []
    for i in range(min(len(x), len(mask))):
        out.append(x[i] * mask[i] / keep)
    return out
