def solve(items, n_test):
    first = {}
    for i, x in enumerate(items):
        if x not in first:
            first[x] = i
    order = sorted(first, key=lambda x: first[x])
    test = order[len(order) - n_test:]
    train = order[:len(order) - n_test]
    overlap = 0
    for x in test:
        if x in set(train):
            overlap += 1
    return [len(train), len(test), overlap, len(items) - len(order)]
