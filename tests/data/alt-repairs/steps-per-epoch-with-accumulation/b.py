def solve(batches, k):
    q, r = divmod(batches, k)
    return q + 1 if r else q
