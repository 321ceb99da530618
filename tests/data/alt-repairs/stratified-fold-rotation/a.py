def solve(labels, k):
    classes = sorted(set(labels))
    index = {c: i for i, c in enumerate(classes)}
    folds = [[0] * len(classes) for _ in range(k)]
    for position, y in enumerate(sorted(labels)):
        folds[position % k][index[y]] += 1
    return folds
