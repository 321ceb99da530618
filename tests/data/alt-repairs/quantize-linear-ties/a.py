import math
def solve(values, scale, zero_point):
    out = []
    for v in values:
        x = v / scale
        f = math.floor(x)
        diff = x - f
        if diff > 0.5 or (diff == 0.5 and f % 2 != 0):
            f += 1
        out.append(min(255, max(0, f + zero_point)))
    return out
