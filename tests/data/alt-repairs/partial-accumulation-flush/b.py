def solve(losses, k):
    updates = []
    i = 0
    while i < len(losses):
        group = losses[i:i + k]
        s = 0.0
        for x in group:
            s = s + x
        updates.append(s / len(group))
        i += k
    return updates
