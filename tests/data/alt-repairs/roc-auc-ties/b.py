def solve(scores, labels):
    pairs = sorted(zip(scores, labels))
    n = len(pairs)
    rank_sum = 0.0
    positives = 0
    i = 0
    while i < n:
        j = i
        while j < n and pairs[j][0] == pairs[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2
        for k in range(i, j):
            if pairs[k][1] == 1:
                positives += 1
                rank_sum += mean_rank
        i = j
    negatives = n - positives
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)
