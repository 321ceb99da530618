def solve(losses, mask):
    total = 0.0
    real = 0
    for r in range(min(len(losses), len(mask))):
        for c in range(min(len(losses[r]), len(mask[r]))):
            if mask[r][c]:
                total = total + losses[r][c]
                real += 1
    return total / real
