def solve(ids, mask):
    return [list(map(lambda t, m: -100 if not m else t, row, row_mask)) for row, row_mask in zip(ids, mask)]
