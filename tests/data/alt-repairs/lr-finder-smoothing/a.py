def solve(losses, beta, threshold):
    running = 0.0
    best = None
    best_at = 0
    correction = 1.0
    for step, loss in enumerate(losses):
        running = beta * running + (1 - beta) * loss
        correction *= beta
        value = running / (1 - correction)
        if best is not None and value > threshold * best:
            return [step, best_at]
        if best is None or value < best:
            best, best_at = value, step
    return [len(losses), best_at]
