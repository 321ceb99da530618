def solve(batches, k, steps):
    per_epoch = -(-batches // k)
    return [steps // per_epoch, steps % per_epoch * k]
