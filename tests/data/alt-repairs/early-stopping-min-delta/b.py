def solve(losses, patience, min_delta):
    threshold = losses[0] - min_delta
    best_epoch = 0
    epoch = 1
    while epoch < len(losses):
        if losses[epoch] < threshold:
            best_epoch = epoch
            threshold = losses[epoch] - min_delta
        elif epoch - best_epoch >= patience:
            return [epoch + 1, best_epoch]
        epoch += 1
    return [len(losses), best_epoch]
