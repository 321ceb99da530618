def solve(params, grads, lr, weight_decay):
    keep = 1.0 - lr * weight_decay
    out = []
    for i in range(min(len(params), len(grads))):
        g = grads[i]
        decayed = params[i] * keep
        out.append(decayed - lr * g / (abs(g) + 1e-8))
    return out
