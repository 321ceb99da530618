def solve(preds, target, num_classes):
    from collections import Counter
    pairs = list(zip(preds, target))
    support = Counter(t for p, t in pairs)
    hits = Counter(t for p, t in pairs if p == t)
    labels = sorted(set(preds) | set(target))
    total = 0.0
    for c in labels:
        total += hits[c] / support[c] if support[c] else 0.0
    return total / len(labels)
