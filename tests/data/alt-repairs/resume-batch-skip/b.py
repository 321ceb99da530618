def solve(batches, k, steps):
    per_epoch = batches // k + (1 if batches % k else 0)
    epoch, done = divmod(steps, per_epoch)
    return [epoch, done * k]
