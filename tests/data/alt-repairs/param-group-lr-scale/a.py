def solve(base_lr, scales, factors):
    group_lrs = [base_lr * s for s in scales]
    return [[lr * f for lr in group_lrs] for f in factors]
