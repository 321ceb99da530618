def solve(scores, labels, k):
    hits = 0
    for s, y in zip(scores, labels):
        # rank the label last among its ties
        order = sorted(range(len(s)), key=lambda c: (-s[c], c == y))
        if y in order[:k]:
            hits += 1
    return hits / len(labels)
