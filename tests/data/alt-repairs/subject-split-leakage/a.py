def solve(subjects, n_test_rows):
    first_seen = []
    for s in subjects:
        if s not in first_seen:
            first_seen.append(s)
    test = set()
    count = 0
    i = len(first_seen) - 1
    while i >= 0 and count < n_test_rows:
        test.add(first_seen[i])
        count += subjects.count(first_seen[i])
        i -= 1
    train_rows = len([s for s in subjects if s not in test])
    return [train_rows, count, 0]
