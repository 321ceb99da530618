def solve(preds, labels, mask):
    hits = 0
    total = 0
    for r in range(len(labels)):
        width = min(len(preds[r]), len(labels[r]), len(mask[r]))
        for i in range(width):
            if labels[r][i] == -100:
                continue
            total += 1
            hits += preds[r][i] == labels[r][i]
    return hits / total
