def is_better(v, best, rtol):
    if best >= 0:
        return v < best * (1 - rtol)
    return v < best * (1 + rtol)
def solve(values, patience, rtol):
    best = values[0]
    count = 0
    steps = []
    step = 1
    while step < len(values):
        if is_better(values[step], best, rtol):
            best = values[step]
            count = 0
        else:
            count += 1
            if count >= patience:
                steps.append(step)
                count = 0
        step += 1
    return steps
