def solve(losses, k):
    updates = []
    total = 0.0
    n = 0
    for loss in losses:
        total += loss
        n += 1
        if n == k:
            updates.append(total / n)
            total = 0.0
            n = 0
    if n:
        updates.append(total / n)
    return updates
