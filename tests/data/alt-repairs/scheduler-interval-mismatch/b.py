def solve(base_lr, epochs, steps_per_epoch, at):
    horizon = steps_per_epoch * epochs
    rates = []
    for step in at:
        numerator = base_lr * (horizon - step)
        rates.append(numerator / horizon)
    return rates
