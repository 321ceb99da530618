def solve(ndims, is_bias, values, lr, weight_decay):
    return [p - lr * weight_decay * p if nd >= 2 else p for nd, p in zip(ndims, values[:len(is_bias)])]
