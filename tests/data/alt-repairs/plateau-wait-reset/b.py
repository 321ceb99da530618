def solve(losses, patience, cooldown):
    reductions = []
    best = losses[0]
    bad = 0
    skip = 0
    i = 1
    while i < len(losses):
        improved = losses[i] < best
        if improved:
            best = losses[i]
        if skip > 0:
            skip -= 1
            bad = 0
        elif improved:
            bad = 0
        else:
            bad += 1
            if bad >= patience:
                reductions.append(i)
                bad = 0
                skip = cooldown
        i += 1
    return reductions
