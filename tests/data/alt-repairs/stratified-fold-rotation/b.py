def solve(labels, k):
    counts = {}
    for y in labels:
        counts[y] = counts.get(y, 0) + 1
    classes = sorted(counts)
    result = []
    for f in range(k):
        row = []
        before = 0
        for c in classes:
            n = counts[c]
            q, r = divmod(n, k)
            extra = 1 if (f - before) % k < r else 0
            row.append(q + extra)
            before += r
        result.append(row)
    return result
