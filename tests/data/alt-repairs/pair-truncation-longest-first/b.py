def solve(len_a, len_b, max_length):
    sizes = [len_a, len_b]
    while sum(sizes) > max_length - 3:
        longer = 0 if sizes[0] > sizes[1] else 1
        sizes[longer] -= 1
    return sizes
