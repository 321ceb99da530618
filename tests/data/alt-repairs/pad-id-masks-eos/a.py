def solve(ids, mask):
    out = []
    for row, row_mask in zip(ids, mask):
        labels = list(row[:len(row_mask)])
        for i, m in enumerate(row_mask[:len(labels)]):
            if m == 0:
                labels[i] = -100
        out.append(labels)
    return out
