def solve(warmup, total, step):
    if step >= warmup:
        length = total - warmup
        position = step - warmup
        if position > length:
            position = length
        return [1, position, length]
    return [0, step, warmup]
