def solve(preds, target, num_classes):
    labels = []
    for x in list(preds) + list(target):
        if x not in labels:
            labels.append(x)
    labels.sort()
    recalls = []
    for c in labels:
        support = 0
        hits = 0
        for i in range(min(len(preds), len(target))):
            if target[i] == c:
                support += 1
                hits += preds[i] == c
        recalls.append(hits / support if support > 0 else 0.0)
    total = 0.0
    for r in recalls:
        total = total + r
    return total / len(recalls)
