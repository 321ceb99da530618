def solve(base_lr, epochs, steps_per_epoch, at):
    T = epochs * steps_per_epoch
    return [base_lr * (T - s) / T for s in at]
