def solve(labels, mask, losses, pad_id):
    kept = [loss for row_mask, row_losses in zip(mask, losses) for keep, loss in zip(row_mask, row_losses) if keep]
    total = 0.0
    for loss in kept:
        total += loss
    return total / len(kept)
