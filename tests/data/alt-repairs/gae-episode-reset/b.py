def solve(rewards, values, dones, gamma, lam):
    n = len(rewards)
    result = []
    for t in range(n):
        total = 0.0
        weight = 1.0
        k = t
        while k < n:
            boot = 0.0 if dones[k] else gamma * values[k + 1]
            total += weight * (rewards[k] + boot - values[k])
            if dones[k]:
                break
            weight *= gamma * lam
            k += 1
        result.append(total)
    return result
