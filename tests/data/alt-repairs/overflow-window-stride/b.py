def solve(n_tokens, max_len, stride):
    if n_tokens <= max_len:
        return [[0, n_tokens]]
    step = max_len - stride
    count = 1 + -(-(n_tokens - max_len) // step)
    windows = []
    for k in range(count):
        start = k * step
        windows.append([start, min(start + max_len, n_tokens)])
    return windows
