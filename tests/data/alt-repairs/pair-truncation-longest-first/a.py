def solve(len_a, len_b, max_length):
    budget = max_length - 3
    excess = len_a + len_b - budget
    a, b = len_a, len_b
    if excess <= 0:
        return [a, b]
    gap = abs(a - b)
    first = min(gap, excess)
    if a > b:
        a -= first
    else:
        b -= first
    rest = excess - first
    b -= (rest + 1) // 2
    a -= rest // 2
    return [a, b]
