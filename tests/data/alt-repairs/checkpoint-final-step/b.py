def solve(total_steps, every):
    out = set()
    step = 0
    while step < total_steps:
        step += 1
        if step % every == 0:
            out.add(step)
    out.add(total_steps)
    return sorted(out)
