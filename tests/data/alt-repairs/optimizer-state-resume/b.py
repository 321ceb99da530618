def solve(grads, resume_at, beta):
    def run(state, gs):
        step, avg = state
        trace = []
        for g in gs:
            step += 1
            avg = beta * avg + (1 - beta) * g
            trace.append([step, avg])
        return (step, avg), trace
    checkpoint, _ = run((0, 0.0), grads[:resume_at])
    _, after = run(checkpoint, grads[resume_at:])
    return after
