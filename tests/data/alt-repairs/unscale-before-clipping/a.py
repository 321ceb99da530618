def solve(grads, scale, max_norm):
    import math
    unscaled = [g / scale for g in grads]
    total = 0.0
    for u in unscaled:
        total += u * u
    norm = math.sqrt(total)
    if norm > max_norm:
        return [u * max_norm / norm for u in unscaled]
    return unscaled
