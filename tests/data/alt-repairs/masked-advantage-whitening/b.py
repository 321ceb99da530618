import statistics
def solve(advantages, mask):
    valid = []
    for i in range(min(len(advantages), len(mask))):
        if mask[i]:
            valid.append(advantages[i])
    mean = statistics.fmean(valid)
    std = statistics.pstdev(valid)
    return [(a - mean) / std for a in valid]
