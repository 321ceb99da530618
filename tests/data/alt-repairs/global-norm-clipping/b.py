def solve(grads, max_norm):
    from math import sqrt
    squares = 0.0
    for i in range(len(grads)):
        for j in range(len(grads[i])):
            squares = squares + grads[i][j] * grads[i][j]
    norm = sqrt(squares)
    scale = 1.0
    if norm > 0:
        scale = min(max_norm / norm, 1.0)
    out = []
    for tensor in grads:
        row = []
        for g in tensor:
            row.append(g * scale)
        out.append(row)
    return out
