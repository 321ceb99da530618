def solve(bucket_sizes, batch_size):
    batches = sum(-(-size // batch_size) for size in bucket_sizes)
    return [batches, sum(bucket_sizes)]
