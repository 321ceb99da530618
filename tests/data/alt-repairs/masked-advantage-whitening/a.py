def solve(advantages, mask):
    valid = [a for a, m in zip(advantages, mask) if m != 0]
    n = len(valid)
    mean = sum(valid) / n
    var = sum((a - mean) ** 2 for a in valid) / n
    std = var ** 0.5
    return [(a - mean) / std for a in valid]
