def solve(bucket_sizes, batch_size):
    count = 0
    seen = 0
    for size in bucket_sizes:
        left = size
        while left > 0:
            take = min(batch_size, left)
            count += 1
            seen += take
            left -= take
    return [count, seen]
