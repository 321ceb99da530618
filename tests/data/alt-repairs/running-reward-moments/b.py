def solve(batches):
    values = []
    for batch in batches:
        values.extend(batch)
    n = len(values)
    mean = 0.0
    for v in values:
        mean += v
    mean = mean / n
    var = 0.0
    for v in values:
        var += (v - mean) * (v - mean)
    return [mean, var / n, n]
