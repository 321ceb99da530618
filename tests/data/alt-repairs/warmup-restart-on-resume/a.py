def solve(base_lr, warmup, steps, resume_at):
    return [base_lr * (t + 1) / warmup if t < warmup else base_lr for t in range(resume_at, steps)]
