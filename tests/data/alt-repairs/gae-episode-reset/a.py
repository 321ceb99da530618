def solve(rewards, values, dones, gamma, lam):
    n = len(rewards)
    out = []
    running = 0.0
    next_value = values[n]
    for t in range(n - 1, -1, -1):
        if dones[t]:
            next_value = 0.0
            running = 0.0
        delta = rewards[t] + gamma * next_value - values[t]
        running = delta + gamma * lam * running
        out.append(running)
        next_value = values[t]
    return out[::-1]
