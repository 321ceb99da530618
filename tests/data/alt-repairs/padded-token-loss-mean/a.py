def solve(losses, mask):
    kept = [x for row, row_mask in zip(losses, mask) for x, m in zip(row, row_mask) if m]
    total = 0.0
    for x in kept:
        total += x
    return total / len(kept)
