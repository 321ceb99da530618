def solve(n_samples, batch_size):
    drop_last = n_samples > batch_size
    sizes = [min(batch_size, n_samples - start) for start in range(0, n_samples, batch_size)]
    if drop_last and sizes and sizes[-1] < batch_size:
        sizes.pop()
    return sizes
