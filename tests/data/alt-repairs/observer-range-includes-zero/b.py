import math
def solve(values, bits):
    qmax = 2 ** bits - 1
    lo = min([0.0] + list(values))
    hi = max([0.0] + list(values))
    scale = (hi - lo) / qmax
    x = -lo / scale
    f = math.floor(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and f % 2 == 1):
        f += 1
    return [scale, min(qmax, max(0, f))]
