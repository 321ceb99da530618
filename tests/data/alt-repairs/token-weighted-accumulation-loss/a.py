def solve(micro_batches):
    flat = [loss for batch in micro_batches for loss in batch]
    total = 0.0
    for loss in flat:
        total += loss
    return total / len(flat)
