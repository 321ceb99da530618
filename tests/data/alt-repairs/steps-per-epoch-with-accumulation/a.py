def solve(batches, k):
    return -(-batches // k)
