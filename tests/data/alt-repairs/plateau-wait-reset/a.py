def solve(losses, patience, cooldown):
    best = losses[0]
    count = 0
    quiet_until = 0
    out = []
    for i in range(1, len(losses)):
        x = losses[i]
        if x < best:
            best = x
            count = 0
            continue
        if i <= quiet_until:
            continue
        count += 1
        if count == patience:
            out.append(i)
            count = 0
            quiet_until = i + cooldown
    return out
