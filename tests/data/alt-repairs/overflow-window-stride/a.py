def solve(n_tokens, max_len, stride):
    step = max_len - stride
    out = [[0, min(max_len, n_tokens)]]
    while out[-1][1] < n_tokens:
        start = out[-1][0] + step
        out.append([start, min(start + max_len, n_tokens)])
    return out
