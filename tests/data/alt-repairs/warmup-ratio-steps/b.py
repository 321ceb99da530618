def solve(num_training_steps, warmup_ratio):
    x = num_training_steps * warmup_ratio
    return int(-(-x // 1))
