def solve(preds, target, batch_size):
    n = len(target)
    batches = (n + batch_size - 1) // batch_size
    pairs = list(zip(preds, target))
    tp = len([1 for p, t in pairs if p == 1 and t == 1])
    fp = len([1 for p, t in pairs if p == 1 and t != 1])
    fn = len([1 for p, t in pairs if p != 1 and t == 1])
    if tp + fp + fn == 0:
        return [batches, 0.0]
    return [batches, tp / (tp + (fp + fn) / 2)]
