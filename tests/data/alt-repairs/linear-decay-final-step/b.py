def solve(base, floor, total):
    span = total - 1
    drop = base - floor
    return [floor + drop * (span - t) / span if span else floor for t in range(total)]
