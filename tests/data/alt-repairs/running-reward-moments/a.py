def solve(batches):
    count = 0
    mean = 0.0
    m2 = 0.0
    for batch in batches:
        n = len(batch)
        b_mean = sum(batch) / n
        b_m2 = sum((x - b_mean) ** 2 for x in batch)
        delta = b_mean - mean
        total = count + n
        mean = mean + delta * n / total
        m2 = m2 + b_m2 + delta ** 2 * count * n / total
        count = total
    return [mean, m2 / count, count]
