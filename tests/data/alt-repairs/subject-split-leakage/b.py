def solve(subjects, n_test_rows):
    sizes = {}
    for s in subjects:
        sizes[s] = sizes.get(s, 0) + 1
    trailing = list(sizes)[::-1]
    test_rows = 0
    for s in trailing:
        if test_rows < n_test_rows:
            test_rows += sizes[s]
    train = len(subjects) - test_rows
    return [train, test_rows, 0]
