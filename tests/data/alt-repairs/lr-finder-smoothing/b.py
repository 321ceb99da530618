def smoothed_curve(losses, beta):
    out = []
    avg = 0.0
    for t, loss in enumerate(losses, start=1):
        avg = beta * avg + (1 - beta) * loss
        out.append(avg / (1 - beta ** t))
    return out
def solve(losses, beta, threshold):
    curve = smoothed_curve(losses, beta)
    best_step = 0
    for i in range(1, len(curve)):
        if curve[i] > threshold * curve[best_step]:
            return [i, best_step]
        if curve[i] < curve[best_step]:
            best_step = i
    return [len(curve), best_step]
