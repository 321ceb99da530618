def solve(losses, patience, min_delta):
    best_epoch = 0
    since_best = 0
    for epoch, loss in enumerate(losses):
        if epoch == 0:
            continue
        if losses[best_epoch] - loss > min_delta:
            best_epoch = epoch
            since_best = 0
            continue
        since_best += 1
        if since_best == patience:
            return [epoch + 1, best_epoch]
    return [len(losses), best_epoch]
