def solve(overflow, growth_interval):
    return sum(1 for found_inf in overflow if not found_inf)
