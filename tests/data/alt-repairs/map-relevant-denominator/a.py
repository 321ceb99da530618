def average_precision(flags, r):
    if r == 0:
        return 0.0
    precision_sum = 0.0
    found = 0
    rank = 0
    for flag in flags:
        rank += 1
        if flag == 1:
            found += 1
            precision_sum += found / rank
    return precision_sum / r
def solve(relevance, total_relevant):
    acc = 0.0
    for i in range(len(relevance)):
        acc += average_precision(relevance[i], total_relevant[i])
    return acc / len(relevance)
