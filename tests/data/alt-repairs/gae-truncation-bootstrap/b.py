def solve(rewards, terminated, truncated, final_values, last_value, gamma):
    n = len(rewards)
    result = []
    for t in range(n):
        total = 0.0
        scale = 1.0
        k = t
        while True:
            total += scale * rewards[k]
            scale *= gamma
            if terminated[k]:
                break
            if truncated[k]:
                total += scale * final_values[k]
                break
            if k == n - 1:
                total += scale * last_value
                break
            k += 1
        result.append(total)
    return result
