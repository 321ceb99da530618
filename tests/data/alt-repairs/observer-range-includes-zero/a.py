def solve(values, bits):
    levels = (1 << bits) - 1
    low = 0.0
    high = 0.0
    for v in values:
        low = min(low, v)
        high = max(high, v)
    scale = (high - low) / levels
    zp = -round(low / scale)
    if zp < 0:
        zp = 0
    if zp > levels:
        zp = levels
    return [scale, zp]
