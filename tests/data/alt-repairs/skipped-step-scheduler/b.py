def solve(overflow, growth_interval):
    skipped = 0
    for found_inf in overflow:
        if found_inf:
            skipped += 1
    return len(overflow) - skipped
