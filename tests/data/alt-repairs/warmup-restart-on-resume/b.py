def solve(base_lr, warmup, steps, resume_at):
    whole_run = []
    for t in range(steps):
        whole_run.append(base_lr * (t + 1) / warmup if t < warmup else base_lr)
    return whole_run[resume_at:]
