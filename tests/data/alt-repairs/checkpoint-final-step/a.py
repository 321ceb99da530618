def solve(total_steps, every):
    steps = list(range(every, total_steps + 1, every))
    if not steps or steps[-1] != total_steps:
        steps.append(total_steps)
    return steps
