def solve(values, patience, rtol):
    best = values[0]
    since = 0
    out = []
    for step, v in enumerate(values[1:], start=1):
        margin = rtol * (best if best >= 0 else -best)
        if best - v > margin:
            best, since = v, 0
            continue
        since += 1
        if since == patience:
            out.append(step)
            since = 0
    return out
