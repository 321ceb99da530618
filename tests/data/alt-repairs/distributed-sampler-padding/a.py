def solve(flags, world_size):
    return sum(flags) / len(flags)
