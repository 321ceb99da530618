def solve(num_training_steps, warmup_ratio):
    x = num_training_steps * warmup_ratio
    whole = int(x)
    return whole if whole == x else whole + 1
