def solve(ndims, is_bias, values, lr, weight_decay):
    decay = lr * weight_decay
    out = []
    for i in range(min(len(ndims), len(is_bias), len(values))):
        p = values[i]
        if ndims[i] > 1:
            p = p - decay * p
        out.append(p)
    return out
