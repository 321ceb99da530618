def solve(m, v, t, lr, beta1, beta2, eps):
    import math
    p1 = 1.0
    p2 = 1.0
    i = 0
    while i < t:
        p1 *= beta1
        p2 *= beta2
        i += 1
    m_hat = m / (1.0 - p1)
    v_hat = v / (1.0 - p2)
    denom = math.sqrt(v_hat) + eps
    return lr * m_hat / denom
