def solve(grads, resume_at, beta):
    states = []
    m = 0.0
    for t, g in enumerate(grads, start=1):
        m = m + (1 - beta) * (g - m)
        states.append([t, m])
    return states[resume_at:]
