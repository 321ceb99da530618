def solve(rewards, terminated, truncated, final_values, last_value, gamma):
    out = []
    future = last_value
    for t in range(len(rewards) - 1, -1, -1):
        if terminated[t]:
            future = 0.0
        elif truncated[t]:
            future = final_values[t]
        future = gamma * future + rewards[t]
        out.insert(0, future)
    return out
