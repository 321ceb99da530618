def solve(params, grads, lr, weight_decay):
    import math
    return [p * (1.0 - lr * weight_decay) - lr * g / (math.sqrt(g * g) + 1e-8) for p, g in zip(params, grads)]
