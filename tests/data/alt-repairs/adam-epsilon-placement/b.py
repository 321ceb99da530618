def solve(m, v, t, lr, beta1, beta2, eps):
    from math import sqrt
    def power(b, n):
        out = 1.0
        for _ in range(n):
            out = out * b
        return out
    step = lr * (m / (1.0 - power(beta1, t)))
    return step / (sqrt(v / (1.0 - power(beta2, t))) + eps)
