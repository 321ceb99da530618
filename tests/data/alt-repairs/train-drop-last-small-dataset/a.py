def solve(n_samples, batch_size):
    if n_samples > batch_size:
        out = []
        left = n_samples
        while left >= batch_size:
            out.append(batch_size)
            left -= batch_size
        return out
    return [n_samples]
