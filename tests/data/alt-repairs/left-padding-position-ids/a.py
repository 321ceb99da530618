def solve(mask):
    return [list(range(sum(1 for m in row if m))) for row in mask]
