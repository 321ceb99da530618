def solve(grads, max_norm):
    import math
    flat = [g for tensor in grads for g in tensor]
    total = 0.0
    for g in flat:
        total += g * g
    norm = math.sqrt(total)
    coef = max_norm / norm if norm > max_norm else 1.0
    return [[g * coef for g in tensor] for tensor in grads]
