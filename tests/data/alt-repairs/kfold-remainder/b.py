def solve(n, k):
    folds = [0] * k
    start = 0
    for f in range(k):
        end = start + n // k + (1 if f < n % k else 0)
        folds[f] = end - start
        start = end
    return folds
