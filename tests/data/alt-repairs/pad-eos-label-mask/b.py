def solve(labels, mask, losses, pad_id):
    total = 0.0
    count = 0
    for r in range(len(mask)):
        for i in range(min(len(mask[r]), len(losses[r]))):
            if mask[r][i] != 0:
                total = total + losses[r][i]
                count = count + 1
    return total / count
