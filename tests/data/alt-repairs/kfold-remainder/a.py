def solve(n, k):
    sizes = [n // k] * k
    for f in range(n % k):
        sizes[f] += 1
    return sizes
