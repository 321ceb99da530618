def solve(items, n_test):
    unique = list(dict.fromkeys(items))
    n_train = len(unique) - n_test
    train, test = unique[:n_train], unique[n_train:]
    leaked = sum(1 for x in test if x in train)
    return [len(train), len(test), leaked, len(items) - len(unique)]
